import {ch, MOVES, type Binding} from '../../keys.js';
import {followCursor, moveScroll} from '../../nav.js';
import type {Outcome, Screen} from '../types.js';
import {reasoningStep, SHARED_BINDINGS, sharedCommand, TAB_FOR, type TrajectoryView} from '../trajectory/keys.js';
import type {TextFind} from '../trajectory/text-find.js';

/** One step of a run in full: thought, action, observation. */
export interface StepScreen {
  kind: 'step';
  uid?: number;
  id: number;
  idx: number;
  scroll: number;
  find?: TextFind | null;
  stagePrompt?: number | null;
}

declare module '../types.js' {
  interface ScreenStates {
    step: StepScreen;
  }
}

export const BINDINGS: Binding[] = [
  ...SHARED_BINDINGS,
  {
    id: 'nextStep',
    label: 'next step',
    keys: 'n, ]',
    description: 'next step',
    scopes: ['step'],
    hint: ['step'],
    match: input => input === 'n' || input === ']',
  },
  {
    id: 'claimEvidence',
    label: 'evidence',
    keys: 'J',
    description: "the trace step a checked claim of this step's thought rests on, in the stepper (reasoning check)",
    scopes: ['step'],
    match: ch('J'),
  },
  {
    id: 'prevStep',
    label: 'previous',
    keys: 'p, [',
    description: 'previous step',
    scopes: ['step'],
    hint: ['step'],
    match: input => input === 'p' || input === '[',
  },
];

export function command(s: StepScreen, id: string, view: TrajectoryView, below: Screen[]): Outcome<StepScreen> | null {
  const shared = sharedCommand(s, id, view, s.idx);
  if (shared) return shared;
  const parent = below.at(-1);
  // a tab key goes back to the run, on that tab
  const tab = TAB_FOR[id];
  if (tab) return parent?.kind === 'trajectory' ? {screen: null, parent: {...parent, tab, scroll: 0}} : {};
  if (MOVES.has(id)) return {screen: {...s, scroll: moveScroll(s.scroll, id, view)}};
  if (id === 'claimEvidence') {
    const e = view.evidence?.[0];
    if (!e) return {status: 'no checked claim of this step rests on a trace step (deltalens reasoning check)'};
    return {intents: [{kind: 'openEvidence', ...e}]};
  }
  // n without a search is the next step; r / R the next / previous one with code reasoning
  if (id === 'nextReasoning' || id === 'prevReasoning') {
    const to = reasoningStep(view.reasoningSteps, s.idx, id === 'nextReasoning' ? 1 : -1);
    if (to === null)
      return {
        status: view.reasoningSteps.length
          ? `no ${id === 'nextReasoning' ? 'later' : 'earlier'} step with code reasoning`
          : 'no step of this run holds code reasoning',
      };
    return {
      screen: {...s, idx: to, scroll: 0, find: null},
      ...(parent?.kind === 'trajectory' ? {parent: {...parent, steps: followCursor(parent.steps, to, view.page)}} : {}),
    };
  }
  if (id === 'nextStep' || id === 'prevStep' || id === 'findNext') {
    const idx = Math.min(Math.max(0, s.idx + (id === 'prevStep' ? -1 : 1)), Math.max(0, view.steps - 1));
    // the timeline's cursor stays on the step being read, so Esc lands where you are
    return {
      screen: {...s, idx, scroll: 0, find: null},
      ...(parent?.kind === 'trajectory'
        ? {parent: {...parent, steps: followCursor(parent.steps, idx, view.page)}}
        : {}),
    };
  }
  return null;
}
