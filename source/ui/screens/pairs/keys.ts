import {INSTANCE_BINDING, MOVES, type Binding} from '../../keys.js';
import {moveCursor, type Cursor} from '../../nav.js';
import type {Outcome, View} from '../types.js';
import {stepperScreen} from '../stepper/keys.js';

/** Traced pairs (buggy vs patched executions of one test): all, a run's, or an instance's. */
export interface PairsScreen {
  kind: 'pairs';
  uid?: number;
  list: Cursor;
  trajectory?: number;
  instance?: string;
}

declare module '../types.js' {
  interface ScreenStates {
    pairs: PairsScreen;
  }
}

export interface PairsView extends View {
  pairs: number[];
  /** each pair's instance */
  instances: string[];
}

export const BINDINGS: Binding[] = [
  {
    id: 'open',
    label: 'step through',
    keys: 'Enter',
    description: 'step through the selected pair (the trace stepper)',
    scopes: ['pairs'],
    hint: ['pairs'],
    match: (_, key) => key.return,
  },
  INSTANCE_BINDING,
];

export function command(s: PairsScreen, id: string, view: PairsView): Outcome<PairsScreen> | null {
  if (MOVES.has(id)) return {screen: {...s, list: moveCursor(s.list, id, view)}};
  if (id === 'instance') {
    const instance = view.instances[s.list.cursor];
    return instance ? {push: [{kind: 'instance', id: instance, scroll: 0}]} : null;
  }
  const pair = id === 'open' ? view.pairs[s.list.cursor] : undefined;
  return pair === undefined ? null : {push: [stepperScreen(pair)]};
}
