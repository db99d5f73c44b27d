import type {ScreenDef} from '../types.js';
import {BINDINGS, command, type BoardScreen, type BoardView} from './keys.js';
import {BoardComponent} from './screen.js';

export const board: ScreenDef<BoardScreen, BoardView> = {
  kind: 'board',
  title: 'Leaderboard',
  bindings: BINDINGS,
  Component: BoardComponent,
  command,
};
