import type {ScreenDef} from '../types.js';
import {BINDINGS, command, type PairsScreen, type PairsView} from './keys.js';
import {PairsComponent} from './screen.js';

export const pairs: ScreenDef<PairsScreen, PairsView> = {
  kind: 'pairs',
  title: 'Traced pairs',
  bindings: BINDINGS,
  Component: PairsComponent,
  command,
};
