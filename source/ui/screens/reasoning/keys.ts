import {MOVES, type Binding} from '../../keys.js';
import {moveScroll} from '../../nav.js';
import type {Outcome, View} from '../types.js';

/** Code reasoning across the store (DeskCheck RQ1–RQ3): per agent, family, phase. */
export interface ReasoningScreen {
  kind: 'reasoning';
  uid?: number;
  scroll: number;
}

export const BINDINGS: Binding[] = [];

export function command(s: ReasoningScreen, id: string, view: View): Outcome<ReasoningScreen> | null {
  return MOVES.has(id) ? {screen: {...s, scroll: moveScroll(s.scroll, id, view)}} : null;
}
