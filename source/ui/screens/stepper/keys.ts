import type {Key} from 'ink';
import type {WatchValue} from '../../../services/stepper.js';
import {ch, fieldKey, fieldPrompt, type Binding, type Scope} from '../../keys.js';
import type {Outcome, View} from '../types.js';

/** The trace stepper: the two executions of a pair, aligned row by row. */
export interface StepperScreen {
  kind: 'stepper';
  uid?: number;
  pair: number;
  row: number;
  summary: boolean;
  /** e: locals shown in full, across the screen */
  expanded?: boolean;
  watches: string[];
  /** text being typed for a search or a watch expression */
  input: null | {mode: 'search' | 'watch'; text: string};
  lastSearch: string;
  message: string | null;
  /** live re-run values by `row\0expression` (L) */
  live: Record<string, WatchValue>;
}

declare module '../types.js' {
  interface ScreenStates {
    stepper: StepperScreen;
  }
}

export function stepperScreen(pair: number, row = 0): StepperScreen {
  return {
    kind: 'stepper',
    pair,
    row,
    summary: false,
    watches: [],
    input: null,
    lastSearch: '',
    message: null,
    live: {},
  };
}

export interface StepperView extends View {
  /** call depth of every row */
  depths: number[];
  /** the delta's row, -1 without one */
  deltaRow: number;
}

export const BINDINGS: Binding[] = [
  {
    id: 'stepOver',
    label: 'next',
    keys: 'n',
    description: 'next aligned step in this frame (over calls)',
    scopes: ['stepper'],
    hint: ['stepper'],
    match: ch('n'),
  },
  {
    id: 'stepBack',
    label: 'prev',
    keys: 'p',
    description: 'previous aligned step in this frame',
    scopes: ['stepper'],
    hint: ['stepper'],
    match: ch('p'),
  },
  {
    id: 'stepInto',
    label: 'into',
    keys: 's',
    description: 'step into: the very next aligned row',
    scopes: ['stepper'],
    hint: ['stepper'],
    match: ch('s'),
  },
  {
    id: 'stepOut',
    label: 'out',
    keys: 'o',
    description: 'step out to the caller',
    scopes: ['stepper'],
    hint: ['stepper'],
    match: ch('o'),
  },
  {
    id: 'toDelta',
    label: 'delta',
    keys: 'd',
    description: 'jump to the delta point (first behavioural difference)',
    scopes: ['stepper'],
    hint: ['stepper'],
    match: ch('d'),
  },
  {
    id: 'deltaSummary',
    label: 'summary',
    keys: 'D',
    description: 'show or hide the delta summary',
    scopes: ['stepper'],
    hint: ['stepper'],
    match: ch('D'),
  },
  {
    id: 'expand',
    label: 'values',
    keys: 'e',
    description: "show both sides' locals in full, across the screen (e again: the panes)",
    scopes: ['stepper'],
    hint: ['stepper'],
    match: ch('e'),
  },
  {
    id: 'search',
    label: 'find',
    keys: '/',
    description: 'find the next row naming a variable or function',
    scopes: ['stepper'],
    hint: ['stepper'],
    match: ch('/'),
  },
  {
    id: 'watch',
    label: 'watch',
    keys: 'x',
    description: 'add a watch expression, evaluated on both sides at every step',
    scopes: ['stepper'],
    hint: ['stepper'],
    match: ch('x'),
  },
  {id: 'clearWatches', keys: 'X', description: 'remove all watch expressions', scopes: ['stepper'], match: ch('X')},
  {
    id: 'liveWatch',
    keys: 'L',
    description: 'evaluate the watches here by a live re-run (deltatrace eval), when recorded state cannot',
    scopes: ['stepper'],
    match: ch('L'),
  },
];

export function command(s: StepperScreen, id: string, view: StepperView): Outcome<StepperScreen> | null {
  // Esc closes the summary or the values in full first, back to the panes
  if (id === 'back' && (s.summary || s.expanded)) return {screen: {...s, summary: false, expanded: false}};
  if (id === 'deltaSummary') return {screen: {...s, summary: !s.summary}};
  if (id === 'expand') return {screen: {...s, expanded: !s.expanded}};
  if (id === 'search') return {screen: {...s, input: {mode: 'search', text: ''}, message: null}};
  if (id === 'watch') return {screen: {...s, input: {mode: 'watch', text: ''}, message: null}};
  if (id === 'clearWatches') return {screen: {...s, watches: [], message: null}};
  if (id === 'liveWatch') {
    return s.watches.length
      ? {screen: {...s, message: null}, intents: [{kind: 'live', pair: s.pair, row: s.row, exprs: s.watches}]}
      : {screen: {...s, message: 'no watch expressions: add one with x'}};
  }
  const moved = move(s, id, view);
  return moved ? {screen: moved} : null;
}

export const mode = (s: StepperScreen): Scope | null => (s.input ? 'textField' : null);

export function input(s: StepperScreen, text: string, key: Key): Outcome<StepperScreen> {
  const edit = s.input!;
  const k = fieldKey(edit.text, text, key);
  if (!('done' in k)) return k.text === edit.text ? {} : {screen: {...s, input: {...edit, text: k.text}}};
  const typed = edit.text.trim();
  if (k.done === 'cancel' || !typed) return {screen: {...s, input: null}};
  if (edit.mode === 'watch')
    return {screen: {...s, input: null, watches: [...s.watches.filter(w => w !== typed), typed], message: null}};
  // finding reads the traces: the runner does it and moves the row
  return {
    screen: {...s, input: null, lastSearch: typed, message: `finding "${typed}"…`},
    intents: [{kind: 'findRow', pair: s.pair, text: typed, from: s.row + 1}],
  };
}

export const prompt = (s: StepperScreen) =>
  s.input
    ? fieldPrompt(s.input.mode === 'search' ? 'find variable or function' : 'watch expression', s.input.text)
    : null;

/** Debugger-style movement over the aligned rows (depth = call depth). */
function move(s: StepperScreen, id: string, view: StepperView): StepperScreen | null {
  const last = Math.max(0, view.total - 1);
  const depth = (r: number) => view.depths[r] ?? 0;
  const here = depth(s.row);
  const find = (from: number, dir: 1 | -1, ok: (d: number) => boolean): number => {
    for (let r = from; r >= 0 && r <= last; r += dir) if (ok(depth(r))) return r;
    return -1;
  };
  let row = s.row;
  let message: string | null = null;
  if (id === 'stepInto' || id === 'down') row = Math.min(last, row + 1);
  else if (id === 'up') row = Math.max(0, row - 1);
  else if (id === 'pageDown') row = Math.min(last, row + view.page);
  else if (id === 'pageUp') row = Math.max(0, row - view.page);
  else if (id === 'top') row = 0;
  else if (id === 'bottom') row = last;
  else if (id === 'stepOver' || id === 'stepBack' || id === 'stepOut') {
    const r =
      id === 'stepOver'
        ? find(row + 1, 1, d => d <= here)
        : id === 'stepBack'
          ? find(row - 1, -1, d => d <= here)
          : find(row + 1, 1, d => d < here);
    if (r < 0)
      message =
        id === 'stepOver'
          ? 'the end of the trace'
          : id === 'stepBack'
            ? 'the start of the trace'
            : 'no caller to return to';
    else row = r;
  } else if (id === 'toDelta') {
    if (view.deltaRow < 0) message = 'no delta point in this pair (see D)';
    else row = view.deltaRow;
  } else return null;
  return {...s, row, message};
}
