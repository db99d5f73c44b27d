import {scrolled, type Binding} from '../../keys.js';
import type {Outcome, View} from '../types.js';

/** Agreement on people's labels: Cohen's and Fleiss' κ, people vs QA models. */
export interface AgreementScreen {
  kind: 'agreement';
  uid?: number;
  scroll: number;
}

declare module '../types.js' {
  interface ScreenStates {
    agreement: AgreementScreen;
  }
}

export const BINDINGS: Binding[] = [];

export function command(s: AgreementScreen, id: string, view: View): Outcome<AgreementScreen> | null {
  return scrolled(s, id, view);
}
