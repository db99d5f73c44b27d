import type {ScreenDef} from '../types.js';
import {BINDINGS, command, type PtaScreen} from './keys.js';
import {PtaComponent} from './screen.js';

export const pta: ScreenDef<PtaScreen> = {
  kind: 'pta',
  title: 'PTA reference',
  bindings: BINDINGS,
  Component: PtaComponent,
  command,
};
