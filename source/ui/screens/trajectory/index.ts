import type {ScreenDef} from '../types.js';
import {BINDINGS, command, input, mode, prompt, type TrajectoryScreen, type TrajectoryView} from './keys.js';
import {TrajectoryComponent} from './screen.js';

export const trajectory: ScreenDef<TrajectoryScreen, TrajectoryView> = {
  kind: 'trajectory',
  title: 'Trajectory',
  bindings: BINDINGS,
  Component: TrajectoryComponent,
  command,
  mode,
  input,
  prompt,
};
