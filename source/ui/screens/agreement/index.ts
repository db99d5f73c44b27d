import type {ScreenDef} from '../types.js';
import {BINDINGS, command, type AgreementScreen} from './keys.js';
import {AgreementComponent} from './screen.js';

export const agreement: ScreenDef<AgreementScreen> = {
  kind: 'agreement',
  title: 'Agreement',
  bindings: BINDINGS,
  Component: AgreementComponent,
  command,
};
