import {scrolled, type Binding} from '../../keys.js';
import type {Outcome, View} from '../types.js';

/** Code reasoning across the store (DeskCheck RQ1–RQ3): per agent, family, phase. */
export interface ReasoningScreen {
  kind: 'reasoning';
  uid?: number;
  scroll: number;
}

declare module '../types.js' {
  interface ScreenStates {
    reasoning: ReasoningScreen;
  }
}

export const BINDINGS: Binding[] = [];

export function command(s: ReasoningScreen, id: string, view: View): Outcome<ReasoningScreen> | null {
  return scrolled(s, id, view);
}
