import type {ScreenDef} from '../types.js';
import {BINDINGS, command, type RankingScreen, type RankingView} from './keys.js';
import {RankingComponent} from './screen.js';

export const ranking: ScreenDef<RankingScreen, RankingView> = {
  kind: 'ranking',
  title: 'Lens rankings',
  bindings: BINDINGS,
  Component: RankingComponent,
  command,
};
