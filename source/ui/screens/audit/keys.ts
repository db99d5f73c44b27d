import {scrolled, type Binding} from '../../keys.js';
import type {Outcome, View} from '../types.js';

/** One explanation audit: the explanations side by side, the requirements, the transcript. */
export interface AuditScreen {
  kind: 'audit';
  uid?: number;
  id: number;
  scroll: number;
}

declare module '../types.js' {
  interface ScreenStates {
    audit: AuditScreen;
  }
}

export const BINDINGS: Binding[] = [];

export function command(s: AuditScreen, id: string, view: View): Outcome<AuditScreen> | null {
  return scrolled(s, id, view);
}
