import {describe, expect, it} from 'vitest';
import type {Key} from 'ink';
import {initialState, reduce} from '../../source/ui/state.js';

const ctrlC = {type: 'key' as const, input: 'c', key: {ctrl: true} as Key, view: null, help: {total: 0, page: 10}};

describe('Ctrl+C while the explorer runs a job', () => {
  it('stops the job first (one intent, a status saying so), and quits on the second press', () => {
    let s = reduce(initialState(), {type: 'job', job: {label: 'audit', stopping: false}}).state;
    const first = reduce(s, ctrlC);
    expect(first.state.quitting).toBe(false);
    expect(first.intents.map(i => i.intent)).toEqual([{kind: 'cancelJobs'}]);
    expect(first.state.status?.text).toMatch(/^stopping the audit: what it has done is kept, marked incomplete \(Ctrl\+C again quits\)/);
    s = first.state;
    const second = reduce(s, ctrlC);
    expect(second.state.quitting).toBe(true);
    expect(second.intents).toEqual([]);
  });

  it('quits at once when nothing runs, or once the job has ended', () => {
    expect(reduce(initialState(), ctrlC).state.quitting).toBe(true);
    const ended = reduce(reduce(initialState(), {type: 'job', job: {label: 'audit', stopping: false}}).state, {type: 'job', job: null}).state;
    expect(reduce(ended, ctrlC).state.quitting).toBe(true);
  });
});
