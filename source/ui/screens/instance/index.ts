import type {ScreenDef} from '../types.js';
import {BINDINGS, command, type InstanceScreen, type InstanceView} from './keys.js';
import {InstanceComponent} from './screen.js';

export const instance: ScreenDef<InstanceScreen, InstanceView> = {
  kind: 'instance',
  title: 'Instance',
  bindings: BINDINGS,
  Component: InstanceComponent,
  command,
};
