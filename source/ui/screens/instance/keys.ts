import {ch, scrolled, type Binding} from '../../keys.js';
import {START} from '../../nav.js';
import {listScreen, withCondition} from '../list/keys.js';
import type {Outcome, View} from '../types.js';

/** A SWE-bench instance: its record, tests, runs, traced pairs and questions. */
export interface InstanceScreen {
  kind: 'instance';
  uid?: number;
  id: string;
  scroll: number;
}

declare module '../types.js' {
  interface ScreenStates {
    instance: InstanceScreen;
  }
}

export interface InstanceView extends View {
  runs: number;
  pairs: number;
}

export const BINDINGS: Binding[] = [
  {
    id: 'instanceRuns',
    label: 'runs',
    keys: 'T',
    description: "the instance's runs (its trajectories and imported predictions)",
    scopes: ['instance'],
    hint: ['instance'],
    match: ch('T'),
  },
  {
    id: 'instanceTraces',
    label: 'traces',
    keys: 't',
    description: "the instance's traced pairs",
    scopes: ['instance'],
    hint: ['instance'],
    match: ch('t'),
  },
];

export function command(s: InstanceScreen, id: string, view: View): Outcome<InstanceScreen> | null {
  const v = view as InstanceView;
  if (id === 'instanceRuns')
    return v.runs
      ? {push: [listScreen(withCondition('', 'instance', s.id))]}
      : {status: `no runs of ${s.id} in this database`};
  if (id === 'instanceTraces')
    return v.pairs
      ? {push: [{kind: 'pairs', list: START, instance: s.id}]}
      : {status: `no traced pairs of ${s.id} (deltalens trace --instance ${s.id} --repo CLONE --gold)`};
  return scrolled(s, id, view);
}
