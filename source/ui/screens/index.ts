/**
 * Every explorer screen, by kind. A new screen is a folder here (see readme.md, "How to add a
 * screen") plus one line in each of the two lists below.
 */
import {GLOBAL_BINDINGS, INSTANCE_BINDING, TEXT_FIELD_BINDINGS, type Binding} from '../keys.js';
import {agentQuestions} from './agent-questions/index.js';
import {agreement} from './agreement/index.js';
import {board} from './board/index.js';
import {list} from './list/index.js';
import {pairs} from './pairs/index.js';
import {PICKER_BINDINGS} from './picker.js';
import {pta} from './pta/index.js';
import {instance} from './instance/index.js';
import {question} from './question/index.js';
import {ranking} from './ranking/index.js';
import {reasoning} from './reasoning/index.js';
import {audit} from './audit/index.js';
import {step} from './step/index.js';
import {stepper} from './stepper/index.js';
import {trajectory} from './trajectory/index.js';
import {STAGE_BINDINGS} from './trajectory/stage.js';
import type {Screen, ScreenDef} from './types.js';
import {ANNOTATE_BINDINGS} from './annotate/keys.js';
import {ADJUDICATE_BINDINGS} from './adjudicate/keys.js';

export type {Screen} from './types.js';

// biome-ignore lint/suspicious/noExplicitAny: each screen's view type is its own; the registry holds them all
export const SCREENS: {[K in Screen['kind']]: ScreenDef<Extract<Screen, {kind: K}>, any>} = {
  list,
  trajectory,
  step,
  pairs,
  stepper,
  board,
  agentQuestions,
  question,
  pta,
  ranking,
  agreement,
  reasoning,
  audit,
  instance,
};

// biome-ignore lint/suspicious/noExplicitAny: as SCREENS: the caller hands the view its screen reported
export function defOf<S extends Screen>(screen: S): ScreenDef<S, any> {
  // biome-ignore lint/suspicious/noExplicitAny: as above
  return SCREENS[screen.kind] as unknown as ScreenDef<S, any>;
}

/** Every binding of the explorer, annotate and adjudicate, once each: what help and readme.md list. */
export const ALL_BINDINGS: Binding[] = [
  ...new Set([
    ...GLOBAL_BINDINGS,
    ...Object.values(SCREENS).flatMap(d => d.bindings),
    INSTANCE_BINDING,
    ...TEXT_FIELD_BINDINGS,
    ...STAGE_BINDINGS,
    ...PICKER_BINDINGS,
    ...ANNOTATE_BINDINGS,
    ...ADJUDICATE_BINDINGS,
  ]),
];
