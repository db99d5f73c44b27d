import type {ScreenDef} from '../types.js';
import {input, mode, prompt, type TrajectoryView} from '../trajectory/keys.js';
import {BINDINGS, command, type StepScreen} from './keys.js';
import {StepComponent} from './screen.js';

export const step: ScreenDef<StepScreen, TrajectoryView> = {
  kind: 'step',
  title: 'Step detail',
  bindings: BINDINGS,
  Component: StepComponent,
  command,
  mode,
  input,
  prompt,
};
