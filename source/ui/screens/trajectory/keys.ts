import type {Key} from 'ink';
import {ch, INSTANCE_BINDING, MOVES, type Binding, type Scope} from '../../keys.js';
import {followCursor, moveCursor, moveScroll, START, type Cursor} from '../../nav.js';
import type {Outcome, ScreenStates} from '../types.js';
import {findInput, findMove, findPrompt, startFind, type TextFind, type TextView} from './text-find.js';
import {stageInput, stagePrompt} from './stage.js';

export type Tab = 'steps' | 'explanation' | 'patch' | 'info';
export const TABS: Tab[] = ['steps', 'explanation', 'patch', 'info'];

/** A run: its intent timeline and steps, or one of its texts (explanation, patch, info). */
export interface TrajectoryScreen {
  kind: 'trajectory';
  uid?: number;
  id: number;
  tab: Tab;
  steps: Cursor;
  scroll: number;
  find?: TextFind | null;
  stagePrompt?: number | null;
}

declare module '../types.js' {
  interface ScreenStates {
    trajectory: TrajectoryScreen;
  }
}

export function trajectoryScreen(id: number, step = 0): TrajectoryScreen {
  return {kind: 'trajectory', id, tab: 'steps', steps: {cursor: step, top: Math.max(0, step - 2)}, scroll: 0};
}

export interface TrajectoryView extends TextView {
  /** steps in the run */
  steps: number;
  /** the run's instance (I opens it) */
  instance?: string;
  /** the steps whose thought holds code reasoning (r / R go to the next / previous) */
  reasoningSteps: number[];
  /** the step screen's checked claims that rest on a trace step (J opens the first) */
  evidence?: {pair: number; side: 'buggy' | 'patched'; seq: number; text: string}[];
  /** the audits of this run's agent's explanation on its instance (a opens the latest) */
  audits?: number[];
}

export const AUDIT_BINDING: Binding = {
  id: 'audit',
  label: 'audit',
  keys: 'a',
  description:
    "the explanation's latest audit (ExplainBench §6); without one, starts an audit with $DELTALENS_AUDIT_MODEL (a chat model with tool calling at $OPENAI_BASE_URL)",
  scopes: ['trajectory', 'question'],
  hint: ['trajectory'],
  match: ch('a'),
};

/** The next (dir 1) or previous (-1) step with code reasoning from `from`, or null. */
export function reasoningStep(steps: number[], from: number, dir: 1 | -1): number | null {
  return (dir > 0 ? steps.find(i => i > from) : [...steps].reverse().find(i => i < from)) ?? null;
}

/** Keys of a run and of one of its steps (the step screen's own are in ../step). */
export const SHARED_BINDINGS: Binding[] = [
  {
    id: 'tabSteps',
    label: 'steps',
    keys: '1',
    description: 'steps timeline',
    scopes: ['trajectory', 'step'],
    hint: ['trajectory'],
    match: ch('1'),
  },
  {
    id: 'tabExplanation',
    label: 'explanation',
    keys: '2',
    description: 'final explanation',
    scopes: ['trajectory', 'step'],
    hint: ['trajectory'],
    match: ch('2'),
  },
  {
    id: 'tabPatch',
    label: 'patch',
    keys: '3',
    description: 'submitted patch (coloured diff)',
    scopes: ['trajectory', 'step'],
    hint: ['trajectory'],
    match: ch('3'),
  },
  {
    id: 'tabInfo',
    keys: '4',
    description: 'run details: status, source, cost',
    scopes: ['trajectory', 'step'],
    match: ch('4'),
  },
  {
    id: 'findText',
    label: 'find',
    keys: '/',
    description: 'find text in the step (thought, action, observation) or in the explanation, patch or info tab',
    scopes: ['trajectory', 'step'],
    hint: ['step'],
    match: ch('/'),
  },
  {
    id: 'findNext',
    keys: 'n',
    description: 'next match of the text being found (on a step without a search: next step)',
    scopes: ['trajectory', 'step'],
    match: ch('n'),
  },
  {
    id: 'findPrev',
    keys: 'N',
    description: 'previous match of the text being found',
    scopes: ['trajectory', 'step'],
    match: ch('N'),
  },
  {
    id: 'reference',
    label: 'reference',
    keys: 'P',
    description: "the run's PTA reference: the other passing runs merged, its path and where it leaves",
    scopes: ['trajectory', 'step'],
    hint: ['trajectory'],
    match: ch('P'),
  },
  {
    id: 'nextReasoning',
    keys: 'r',
    description: 'next step whose thought holds code reasoning (the family letters in the step list)',
    scopes: ['trajectory', 'step'],
    match: ch('r'),
  },
  {
    id: 'prevReasoning',
    keys: 'R',
    description: 'previous step with code reasoning',
    scopes: ['trajectory', 'step'],
    match: ch('R'),
  },
  {
    id: 'correctStage',
    label: 'correct stage',
    keys: 'c',
    description: "correct the step's intent stage (then e/i/v/o; x removes yours), stored under $DELTALENS_ANNOTATOR",
    scopes: ['trajectory', 'step'],
    hint: ['trajectory', 'step'],
    match: ch('c'),
  },
];

export const BINDINGS: Binding[] = [
  {
    id: 'open',
    label: 'open',
    keys: 'Enter',
    description: 'open the selected step',
    scopes: ['trajectory'],
    hint: ['trajectory'],
    match: (_, key) => key.return,
  },
  INSTANCE_BINDING,
  {
    id: 'nextTab',
    keys: 'Tab, l, →',
    description: 'next tab',
    scopes: ['trajectory'],
    match: (input, key) => (key.tab && !key.shift) || input === 'l' || key.rightArrow,
  },
  {
    id: 'prevTab',
    keys: 'Shift+Tab, h, ←',
    description: 'previous tab',
    scopes: ['trajectory'],
    match: (input, key) => (key.tab && key.shift) || input === 'h' || key.leftArrow,
  },
  {
    id: 'traces',
    label: 'traces',
    keys: 't',
    description: "the traced pairs of the run's patch (else of its instance)",
    scopes: ['trajectory'],
    hint: ['trajectory'],
    match: ch('t'),
  },
  AUDIT_BINDING,
  ...SHARED_BINDINGS,
];

export const TAB_FOR: Record<string, Tab> = {
  tabSteps: 'steps',
  tabExplanation: 'explanation',
  tabPatch: 'patch',
  tabInfo: 'info',
};

/** What the run and its step screen do alike: find in a text, open the reference, correct a stage. */
export function sharedCommand<S extends TrajectoryScreen | ScreenStates['step']>(
  s: S,
  id: string,
  view: TrajectoryView,
  stepAt: number | null,
): Outcome<S> | null {
  const text = s.kind === 'step' || s.tab !== 'steps';
  if (id === 'back' && s.find) return {screen: {...s, find: null}};
  if (id === 'reference') return {push: [{kind: 'pta', id: s.id, scroll: 0}]};
  if (id === 'correctStage') return stepAt === null ? {} : {screen: {...s, stagePrompt: stepAt}};
  if (text && id === 'findText') return {screen: startFind(s)};
  if (text && s.find && (id === 'findNext' || id === 'findPrev'))
    return {screen: findMove(s, id === 'findNext' ? 1 : -1, view)};
  return null;
}

export function command(s: TrajectoryScreen, id: string, view: TrajectoryView): Outcome<TrajectoryScreen> | null {
  if (id === 'instance') return view.instance ? {push: [{kind: 'instance', id: view.instance, scroll: 0}]} : null;
  const shared = sharedCommand(s, id, view, s.tab === 'steps' && view.total > 0 ? s.steps.cursor : null);
  if (shared) return shared;
  const tab = TAB_FOR[id];
  if (tab) return {screen: {...s, tab, scroll: 0, find: null}};
  if (id === 'nextTab' || id === 'prevTab') {
    const i = TABS.indexOf(s.tab) + (id === 'nextTab' ? 1 : TABS.length - 1);
    return {screen: {...s, tab: TABS[i % TABS.length]!, scroll: 0, find: null}};
  }
  if (id === 'traces') return {push: [{kind: 'pairs', list: START, trajectory: s.id}]};
  if (id === 'audit')
    return view.audits?.length
      ? {push: [{kind: 'audit', id: view.audits.at(-1)!, scroll: 0}]}
      : {intents: [{kind: 'startAudit', target: {trajectory: s.id}}]};
  if (id === 'nextReasoning' || id === 'prevReasoning') {
    const to = reasoningStep(view.reasoningSteps, s.steps.cursor, id === 'nextReasoning' ? 1 : -1);
    if (to === null)
      return {
        status: view.reasoningSteps.length
          ? `no ${id === 'nextReasoning' ? 'later' : 'earlier'} step with code reasoning`
          : 'no step of this run holds code reasoning (deltalens reasoning tag tags a database)',
      };
    return {screen: {...s, tab: 'steps', steps: followCursor(s.steps, to, view.page), find: null}};
  }
  if (s.tab === 'steps') {
    if (MOVES.has(id)) return {screen: {...s, steps: moveCursor(s.steps, id, view)}};
    if (id === 'open' && view.total > 0) return {push: [{kind: 'step', id: s.id, idx: s.steps.cursor, scroll: 0}]};
    return null;
  }
  if (MOVES.has(id)) return {screen: {...s, scroll: moveScroll(s.scroll, id, view)}};
  return null;
}

export function mode(s: {find?: TextFind | null; stagePrompt?: number | null}): Scope | null {
  if (s.stagePrompt !== undefined && s.stagePrompt !== null) return 'stagePrompt';
  return s.find?.editing ? 'textField' : null;
}

export function input<S extends TrajectoryScreen | ScreenStates['step']>(
  s: S,
  text: string,
  key: Key,
  view: TrajectoryView,
): Outcome<S> {
  return mode(s) === 'stagePrompt' ? stageInput(s, s.id, text, key) : findInput(s, text, key, view);
}

export const prompt = (s: TrajectoryScreen | ScreenStates['step']) => stagePrompt(s) ?? findPrompt(s);
