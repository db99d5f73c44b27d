import {describe, expect, it} from 'vitest';
import {toolResultBrief, variableForModel} from '../../source/core/audit/brief.js';

describe('what an audit tool answered, in one line', () => {
  it('a test run: both outcomes, and the delta point or that there is none', () => {
    const delta = {
      pair: 4,
      kind: 'value',
      function: 'parse_duration',
      file: 'durations/parse.py',
      line: 21,
      timing: 'after',
      variables: [{name: 'total', buggy: 1800, patched: 5400}],
    };
    expect(
      toolResultBrief({before: {exit_code: 1, outcome: 'failed'}, after: {exit_code: 0, outcome: 'passed'}, delta}),
    ).toBe('before failed, after passed · delta at parse_duration (durations/parse.py:21, value): total 1800 → 5400');
    expect(
      toolResultBrief({
        before: {outcome: 'passed'},
        after: {outcome: 'passed'},
        delta: {status: 'not traced', reason: 'timed out'},
      }),
    ).toBe('before passed, after passed · delta not traced: timed out');
    expect(toolResultBrief({before: {outcome: 'failed'}, after: {outcome: 'failed'}, delta: null})).toBe(
      'before failed, after failed · no delta',
    );
  });

  it('a variable that is not a local on one side is said to be absent there, never null', () => {
    const absent = variableForModel({name: 'dom_set', buggy: {$set: []}});
    expect(absent).toEqual({
      name: 'dom_set',
      buggy: {$set: []},
      patched: {$absent: 'not a local variable of the frame here (patched side)'},
    });
    expect(variableForModel({name: 'n', patched: 2, unchangedOn: 'buggy'})).toEqual({
      name: 'n',
      buggy: {$unchanged: 'the value it had before this line'},
      patched: 2,
    });
    expect(variableForModel({name: 'x', buggy: null, patched: 1})).toEqual({name: 'x', buggy: null, patched: 1});
    const delta = {function: 'f', file: 'a.py', line: 3, kind: 'state', variables: [absent]};
    expect(toolResultBrief({before: {outcome: 'failed'}, after: {outcome: 'passed'}, delta})).toBe(
      'before failed, after passed · delta at f (a.py:3, state): dom_set {"$set":[]} → (not a local there)',
    );
  });

  it('a call graph: each traced chain outermost last, how many calls took it, the static callers counted', () => {
    const r = {
      chains: [
        {
          side: 'buggy',
          chain: ['visit (g.py, called at line 23)', 'topo_sort (g.py, called at line 8)', 'test_x (t.py)'],
          times: 3,
        },
      ],
      callers: [{}, {}],
    };
    expect(toolResultBrief(r)).toBe('1 traced chain: visit ← topo_sort ← test_x (×3) · 2 static caller lines');
    expect(toolResultBrief({chains: [], callers: [{}]})).toBe('no traced chain · 1 static caller line');
  });

  it('a command, a file read, an error; long answers are cut', () => {
    expect(toolResultBrief({exit_code: 0, outcome: 'passed', stdout: 'a\nparse.py\n', stderr: ''})).toBe(
      'passed (exit 0) · parse.py',
    );
    expect(toolResultBrief({content: 'x'.repeat(40), truncated: false})).toBe('40 characters');
    expect(toolResultBrief({error: 'refused: ../x is outside'})).toBe('error: refused: ../x is outside');
    expect(toolResultBrief({error: 'e'.repeat(50)}, 20)).toHaveLength(20);
  });
});
