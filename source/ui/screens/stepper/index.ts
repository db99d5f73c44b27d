import type {ScreenDef} from '../types.js';
import {BINDINGS, command, input, mode, prompt, type StepperScreen, type StepperView} from './keys.js';
import {StepperComponent} from './screen.js';

export const stepper: ScreenDef<StepperScreen, StepperView> = {
  kind: 'stepper',
  title: 'Trace stepper',
  bindings: BINDINGS,
  Component: StepperComponent,
  command,
  mode,
  input,
  prompt,
};
