import type {ScreenDef} from '../types.js';
import {BINDINGS, command, input, mode, picked, prompt, type QuestionScreen, type QuestionView} from './keys.js';
import {QuestionComponent} from './screen.js';

export const question: ScreenDef<QuestionScreen, QuestionView> = {
  kind: 'question',
  title: 'Question',
  bindings: BINDINGS,
  Component: QuestionComponent,
  command,
  mode,
  input,
  prompt,
  picked,
};
