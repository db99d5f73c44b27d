import {describe, expect, it} from 'vitest';
import type {Key} from 'ink';
import {initialState, reduce} from '../../source/ui/state.js';

const ctrlC = {type: 'key' as const, input: 'c', key: {ctrl: true} as Key, view: null, help: {total: 0, page: 10}};

describe('Ctrl+C while the explorer runs a job', () => {
  it('stops the job first (one intent, a status saying so), and quits on the second press', () => {
    let s = reduce(initialState(), {type: 'job', label: 'audit', change: 1}).state;
    const first = reduce(s, ctrlC);
    expect(first.state.quitting).toBe(false);
    expect(first.intents.map(i => i.intent)).toEqual([{kind: 'cancelJobs'}]);
    expect(first.state.status?.text).toBe(
      'stopping the audit: what is done is kept, marked incomplete (Ctrl+C again quits)',
    );
    s = first.state;
    const second = reduce(s, ctrlC);
    expect(second.state.quitting).toBe(true);
    expect(second.intents).toEqual([]);
  });

  it('quits at once when nothing runs, or once the job has ended', () => {
    expect(reduce(initialState(), ctrlC).state.quitting).toBe(true);
    const ended = reduce(reduce(initialState(), {type: 'job', label: 'audit', change: 1}).state, {
      type: 'job',
      label: 'audit',
      change: -1,
    }).state;
    expect(reduce(ended, ctrlC).state.quitting).toBe(true);
  });

  it('two audits running: the first to end leaves the other counted, and Ctrl+C stops both', () => {
    const start = {type: 'job' as const, label: 'audit', change: 1 as const};
    let s = reduce(reduce(initialState(), start).state, start).state;
    s = reduce(s, {type: 'job', label: 'audit', change: -1}).state;
    const stop = reduce(s, ctrlC);
    expect(stop.state.quitting).toBe(false);
    expect(stop.intents.map(i => i.intent)).toEqual([{kind: 'cancelJobs'}]);
    const both = reduce(reduce(initialState(), start).state, start);
    expect(reduce(both.state, ctrlC).state.status?.text).toMatch(/^stopping 2 audits:/);
  });
});
