import type {ScreenDef} from '../types.js';
import {BINDINGS, command, type ReasoningScreen} from './keys.js';
import {ReasoningComponent} from './screen.js';

export const reasoning: ScreenDef<ReasoningScreen> = {
  kind: 'reasoning',
  title: 'Code reasoning',
  bindings: BINDINGS,
  Component: ReasoningComponent,
  command,
};
