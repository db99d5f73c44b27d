import {ch, scrolled, type Binding} from '../../keys.js';
import type {Outcome, View} from '../types.js';

/** A run's PTA reference (AgentLens): the other passing runs merged, its path, where it leaves. */
export interface PtaScreen {
  kind: 'pta';
  uid?: number;
  id: number;
  scroll: number;
  dag?: boolean;
}

declare module '../types.js' {
  interface ScreenStates {
    pta: PtaScreen;
  }
}

export const BINDINGS: Binding[] = [
  {
    id: 'dagView',
    label: 'DAG/tree',
    keys: 'D',
    description: 'show the reference as a DAG (suffixes that agree merged) or as the tree',
    scopes: ['pta'],
    hint: ['pta'],
    match: ch('D'),
  },
];

export function command(s: PtaScreen, id: string, view: View): Outcome<PtaScreen> | null {
  if (id === 'dagView') return {screen: {...s, dag: !s.dag, scroll: 0}};
  return scrolled(s, id, view);
}
