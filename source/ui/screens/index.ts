/**
 * Every explorer screen, by kind. A new screen is a folder here (see readme.md, "How to add a
 * screen") plus one line in each of the two lists below.
 */
import {GLOBAL_BINDINGS, INSTANCE_BINDING, TEXT_FIELD_BINDINGS, type Binding} from '../keys.js';
import {agentQuestions} from './agent-questions/index.js';
import type {AgentQuestionsScreen} from './agent-questions/keys.js';
import {agreement} from './agreement/index.js';
import type {AgreementScreen} from './agreement/keys.js';
import {board} from './board/index.js';
import type {BoardScreen} from './board/keys.js';
import {list} from './list/index.js';
import type {ListScreen} from './list/keys.js';
import {pairs} from './pairs/index.js';
import type {PairsScreen} from './pairs/keys.js';
import {PICKER_BINDINGS} from './picker.js';
import {pta} from './pta/index.js';
import {instance} from './instance/index.js';
import type {InstanceScreen} from './instance/keys.js';
import type {PtaScreen} from './pta/keys.js';
import {question} from './question/index.js';
import type {QuestionScreen} from './question/keys.js';
import {ranking} from './ranking/index.js';
import {reasoning} from './reasoning/index.js';
import {audit} from './audit/index.js';
import type {AuditScreen} from './audit/keys.js';
import type {ReasoningScreen} from './reasoning/keys.js';
import type {RankingScreen} from './ranking/keys.js';
import {step} from './step/index.js';
import type {StepScreen} from './step/keys.js';
import {stepper} from './stepper/index.js';
import type {StepperScreen} from './stepper/keys.js';
import {trajectory} from './trajectory/index.js';
import type {TrajectoryScreen} from './trajectory/keys.js';
import {STAGE_BINDINGS} from './trajectory/stage.js';
import type {ScreenDef} from './types.js';
import {ANNOTATE_BINDINGS} from './annotate/keys.js';
import {ADJUDICATE_BINDINGS} from './adjudicate/keys.js';

export type Screen =
  | ListScreen
  | TrajectoryScreen
  | StepScreen
  | PairsScreen
  | StepperScreen
  | BoardScreen
  | AgentQuestionsScreen
  | QuestionScreen
  | PtaScreen
  | RankingScreen
  | AgreementScreen
  | ReasoningScreen
  | AuditScreen
  | InstanceScreen;

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
