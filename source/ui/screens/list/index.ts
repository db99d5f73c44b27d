import type {ScreenDef} from '../types.js';
import {BINDINGS, command, input, mode, picked, prompt, type ListScreen, type ListView} from './keys.js';
import {ListComponent} from './screen.js';

export const list: ScreenDef<ListScreen, ListView> = {
  kind: 'list',
  title: 'Trajectory list',
  bindings: BINDINGS,
  Component: ListComponent,
  command,
  mode,
  input,
  prompt,
  picked,
};
