import type {ScreenDef} from '../types.js';
import {BINDINGS, command, type AuditScreen} from './keys.js';
import {AuditComponent} from './screen.js';

export const audit: ScreenDef<AuditScreen> = {
  kind: 'audit',
  title: 'Explanation audit',
  bindings: BINDINGS,
  Component: AuditComponent,
  command,
};
