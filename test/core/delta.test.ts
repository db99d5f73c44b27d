import {describe, expect, it} from 'vitest';
import {collectNondeterminism, extractDelta, type DeltaOption} from '../../source/core/trace/delta.js';
import {LineMap, type Changes} from '../../source/core/trace/line-map.js';
import type {MemoryTrace} from '../../source/core/trace/records.js';
import {dsl} from '../helpers/trace-builder.js';

const identity = new LineMap(null);
const delta = (
  b: MemoryTrace,
  p: MemoryTrace,
  map = identity,
  options: DeltaOption[] = [],
  nondeterminism?: ReturnType<typeof collectNondeterminism>,
) => extractDelta({buggy: b, patched: p, map, options, nondeterminism});

/** test() calls f(x) on line 2; f runs lines 10..12 */
function program(fBody: (t: ReturnType<typeof dsl>) => void, ret: unknown = 1, args: Record<string, unknown> = {x: 1}) {
  return dsl().call(
    'test',
    {},
    t => t.line(2, {r: ret}, c => c.call('f', args, fBody, {ret}, 'm.py', 9)),
    {ret: null},
    't.py',
    1,
  );
}

describe('Algorithm 1: delta behaviour', () => {
  it('finds nothing in two identical complete traces, and says over how many steps', () => {
    const body = (t: ReturnType<typeof dsl>) => t.line(10, {a: 1}).line(11, {b: 2});
    const d = delta(program(body).build(), program(body).build());
    expect(d.status).toBe('none');
    expect(d.kind).toBeNull();
    // call test, call f, f's 2 lines, f's return, test's line 2, test's return
    expect(d.stepsCompared).toBe(7);
    expect(d.reason).toMatch(/identical over 7 aligned steps in 2 frames/);
  });

  it('reports the first state difference after the line, with both values', () => {
    const b = program(t => t.line(10, {a: 1}).line(11, {b: 2}).line(12, {c: 3})).build('failed');
    const p = program(t => t.line(10, {a: 1}).line(11, {b: 5}).line(12, {c: 9})).build();
    const d = delta(b, p);
    expect(d).toMatchObject({status: 'found', kind: 'state', function: 'f', file: 'm.py', line: 11, timing: 'after'});
    expect(d.variables).toEqual([{name: 'b', buggy: 2, patched: 5}]);
  });

  it('a name changed on one side only is a difference (the other kept the common value)', () => {
    const b = program(t => t.line(10, {a: 1, s: 'x'})).build();
    const p = program(t => t.line(10, {a: 1})).build();
    expect(delta(b, p).variables).toEqual([{name: 's', buggy: 'x', unchangedOn: 'patched'}]);
  });

  it('steps into matching calls and compares the callee arguments before it runs', () => {
    const b = program(t => t.line(10), 1, {x: 1}).build();
    const p = program(t => t.line(10), 1, {x: 2}).build();
    const d = delta(b, p);
    expect(d).toMatchObject({kind: 'state', function: 'f', line: 9, timing: 'before'});
    expect(d.variables).toEqual([{name: 'x', buggy: 1, patched: 2}]);
  });

  it('finds a difference nested two calls deep', () => {
    const body = (v: number) => (t: ReturnType<typeof dsl>) =>
      t.line(10, {}, c => c.call('g', {}, g => g.line(20, {deep: v}), {ret: v}, 'm.py', 19)).line(11, {y: v});
    const d = delta(program(body(1)).build(), program(body(2)).build());
    expect(d).toMatchObject({kind: 'state', function: 'g', line: 20});
    expect(d.variables[0]).toMatchObject({name: 'deep', buggy: 1, patched: 2});
    expect(d.framesEntered).toBe(3);
  });

  it('control-flow mismatch with different outcomes is an outcome delta', () => {
    const b = program(t => t.line(10).line(11), 'neg').build('failed');
    const p = program(t => t.line(10).line(12), 'pos').build();
    const d = delta(b, p);
    expect(d).toMatchObject({kind: 'outcome', function: 'f', line: 11, patchedLine: 12, timing: 'before'});
    expect(d.buggyOutcome).toMatchObject({kind: 'return', value: '"neg"'});
    expect(d.patchedOutcome).toMatchObject({kind: 'return', value: '"pos"'});
    expect(d.control).toEqual({
      buggy: {kind: 'line', line: 11, seq: expect.any(Number)},
      patched: {kind: 'line', line: 12, seq: expect.any(Number)},
    });
  });

  it('control-flow mismatch with equal outcomes returns to the callers and goes on', () => {
    // f takes different paths to the same result; the caller then differs later
    const b = dsl()
      .call(
        'test',
        {},
        t => t.line(2, {r: 1}, c => c.call('f', {}, f => f.line(10).line(11), {ret: 1}, 'm.py', 9)).line(3, {z: 'b'}),
        {ret: null},
        't.py',
      )
      .build();
    const p = dsl()
      .call(
        'test',
        {},
        t => t.line(2, {r: 1}, c => c.call('f', {}, f => f.line(10).line(12), {ret: 1}, 'm.py', 9)).line(3, {z: 'p'}),
        {ret: null},
        't.py',
      )
      .build();
    const d = delta(b, p);
    expect(d).toMatchObject({kind: 'state', function: 'test', line: 3});
  });

  it('one frame ending before the other is a mismatch: outcome compared', () => {
    const b = program(t => t.line(10), 1).build();
    const p = program(t => t.line(10).line(11), 2).build();
    expect(delta(b, p)).toMatchObject({
      kind: 'outcome',
      control: {buggy: {kind: 'return'}, patched: {kind: 'line', line: 11}},
    });
  });

  it('a different exception is an outcome delta; the test outcome is the root outcome', () => {
    const b = dsl()
      .call('test', {}, t => t.line(2), {exc: {type: 'AssertionError', message: 'x'}}, 't.py')
      .build('failed', {exc: 'AssertionError'});
    const p = dsl()
      .call('test', {}, t => t.line(2).line(3), {ret: null}, 't.py')
      .build('passed');
    const d = delta(b, p);
    expect(d).toMatchObject({kind: 'outcome', function: 'test'});
    expect(d.buggyOutcome).toMatchObject({kind: 'exception', exception: {type: 'AssertionError'}});
  });

  it('lines shifted by the patch are the same statement; a touched line matches nothing', () => {
    // the patch inserted one line (patched 11) before buggy line 11 (now 12)
    const changes: Changes = {
      files: [
        {
          file: 'm.py',
          status: 'modified',
          blocks: [
            [1, 1, 10],
            [11, 12, 50],
          ],
        },
      ],
      functions: [{file: 'm.py', qualname: 'f', sides: ['buggy', 'patched']}],
    };
    const map = new LineMap(changes);
    const b = program(t => t.line(10, {a: 1}).line(11, {b: 2})).build();
    const same = program(t => t.line(10, {a: 1}).line(12, {b: 2})).build();
    expect(delta(b, same, map).status).toBe('none');
    // an inserted line (patched 11) is a control-flow mismatch; same result: nothing
    const guarded = program(t => t.line(10, {a: 1}).line(11, {guard: true}).line(12, {b: 2})).build();
    expect(delta(b, guarded, map).status).toBe('none');
    // ... and with a different result, an outcome delta at the split
    const changed = program(t => t.line(10, {a: 1}).line(11, {guard: true}).line(12, {b: 2}), 2).build();
    expect(delta(b, changed, map)).toMatchObject({
      kind: 'outcome',
      function: 'f',
      line: 11,
      patchedLine: 11,
      control: {patched: {kind: 'line', line: 11}},
    });
  });

  it('never reports a value that differs between two runs of the same side', () => {
    const run = (t0: number, v: number) => program(t => t.line(10, {t0}).line(11, {v})).build();
    const nondet = collectNondeterminism(run(1.5, 1), run(2.5, 1), identity);
    expect([...nondet.variables]).toEqual(['m.py\u0000f\u0000t0']);
    const d = delta(run(3.5, 1), run(4.5, 2), identity, [], nondet);
    expect(d).toMatchObject({kind: 'state', line: 11});
    expect(d.variables.map(v => v.name)).toEqual(['v']);
    expect(d.ignoredNondeterministic).toBe(1);
    const none = delta(run(3.5, 1), run(4.5, 1), identity, [], nondet);
    expect(none.status).toBe('none');
  });

  it('a frame whose control flow and result vary between runs of one side is no evidence; a stable one still is', () => {
    // f shuffles: the order of its lines (and so its result) differs from run to run
    const shuffled = (first: number, ret: number) =>
      program(t => t.line(first, {a: 1}).line(first === 10 ? 11 : 10, {b: 2}), ret).build();
    const nondet = collectNondeterminism(shuffled(10, 1), shuffled(11, 2), identity);
    expect([...nondet.outcomes]).toEqual(['m.py\u0000f']);
    // buggy vs patched differ only the way two runs of one side do: not a delta
    const d = delta(shuffled(10, 1), shuffled(11, 2), identity, [], nondet);
    expect(d.status).not.toBe('found');
    expect(d.ignoredNondeterministic).toBeGreaterThan(0);
    // a frame whose result was the same in both runs keeps its outcome delta
    const stable = collectNondeterminism(shuffled(10, 1), shuffled(10, 1), identity);
    expect(delta(shuffled(10, 1), shuffled(11, 2), identity, [], stable)).toMatchObject({
      status: 'found',
      kind: 'outcome',
      function: 'f',
    });
  });

  it('∅ only for complete traces: truncated or crashed traces are incomplete', () => {
    const body = (t: ReturnType<typeof dsl>) => t.line(10, {a: 1});
    const truncated = delta(program(body).build('passed', {truncated: true}), program(body).build());
    expect(truncated).toMatchObject({status: 'incomplete', reason: 'buggy trace truncated'});
    const crashed = delta(program(body).build(), program(body).build('passed', {end: false}));
    expect(crashed).toMatchObject({status: 'incomplete', reason: 'patched trace crashed'});
  });

  it('a frame that never ended (trace cut short) stops the walk as incomplete, not as an outcome delta', () => {
    const b = dsl();
    b.records.push(
      {t: 'call', seq: 1, fid: 1, parent: null, fn: 'test', file: 't.py', def: 1, locals: {}},
      {t: 'line', seq: 2, fid: 1, line: 2, ch: {}},
    );
    const cut = b.build('passed', {truncated: true});
    const full = dsl()
      .call('test', {}, t => t.line(2).line(3), {ret: null}, 't.py')
      .build();
    expect(delta(cut, full)).toMatchObject({status: 'incomplete'});
  });

  it('a patch to a never-executed function gives ∅ with equal outcomes', () => {
    const changes: Changes = {
      files: [
        {
          file: 'm.py',
          status: 'modified',
          blocks: [
            [1, 1, 40],
            [42, 42, 10],
          ],
        },
      ],
      functions: [{file: 'm.py', qualname: 'unused', sides: ['buggy', 'patched']}],
    };
    const body = (t: ReturnType<typeof dsl>) => t.line(10, {a: 1});
    const d = delta(program(body).build('failed'), program(body).build('failed'), new LineMap(changes));
    expect(d.status).toBe('none');
  });

  it('nothing recorded but different test outcomes is an outcome delta at the test, never ∅', () => {
    const d = delta(dsl().build('failed'), dsl().build('passed'));
    expect(d).toMatchObject({
      status: 'found',
      kind: 'outcome',
      function: '<test>',
      buggyOutcome: {kind: 'failed'},
      patchedOutcome: {kind: 'passed'},
    });
    const same = delta(dsl().build('failed'), dsl().build('failed'));
    expect(same).toMatchObject({
      status: 'none',
      reason: 'no patch-modified function ran on either side (nothing recorded); the test failed on both',
    });
  });

  describe('named options (public ExplainBench behaviours), off by default', () => {
    it('round-floats compares at 3 significant digits', () => {
      const b = program(t => t.line(10, {x: 0.30000000000000004})).build();
      const p = program(t => t.line(10, {x: 0.3})).build();
      expect(delta(b, p).status).toBe('found');
      expect(delta(b, p, identity, ['round-floats'])).toMatchObject({status: 'none', options: ['round-floats']});
    });

    it('no-step-into compares calls by their return value', () => {
      const body = (v: number, r: number) => (t: ReturnType<typeof dsl>) =>
        t.line(10, {}, c => c.call('g', {}, g => g.line(20, {inner: v}), {ret: r}, 'm.py', 19));
      expect(delta(program(body(1, 5)).build(), program(body(2, 5)).build()).status).toBe('found');
      // test -> f is compared by f's return value: the inner difference is not seen
      expect(delta(program(body(1, 5)).build(), program(body(2, 5)).build(), identity, ['no-step-into']).status).toBe(
        'none',
      );
      const d = delta(program(body(1, 5), 5).build(), program(body(2, 6), 6).build(), identity, ['no-step-into']);
      expect(d).toMatchObject({kind: 'outcome', function: 'test', line: 2, options: ['no-step-into']});
    });

    it('start-at-patched-function skips everything before the first call of a modified function', () => {
      const changes: Changes = {files: [], functions: [{file: 'm.py', qualname: 'f', sides: ['buggy', 'patched']}]};
      const mk = (pre: number, inF: number) =>
        dsl()
          .call(
            'test',
            {},
            t => t.line(2, {pre}).line(3, {}, c => c.call('f', {}, f => f.line(10, {v: inF}), {ret: inF}, 'm.py', 9)),
            {ret: null},
            't.py',
          )
          .build();
      expect(delta(mk(1, 7), mk(2, 8))).toMatchObject({function: 'test', line: 2});
      expect(delta(mk(1, 7), mk(2, 8), new LineMap(changes), ['start-at-patched-function'])).toMatchObject({
        function: 'f',
        line: 10,
      });
    });

    it('match-by-text matches statements by source text', () => {
      const src = (lines: string[]) => ({t: 'source', file: 'm.py', text: lines.join('\n')});
      const mk = (line: number, text: string[], a: number) => {
        const t = program(f => f.line(line, {a}));
        t.records.splice(1, 0, src(text));
        return t.build();
      };
      const b = mk(10, [...Array(9).fill(''), 'a = g()'], 1);
      const p = mk(11, [...Array(10).fill(''), 'a = g()'], 2);
      // identity mapping: line 10 is not line 11, a mismatch with equal outcomes: nothing
      expect(delta(b, p).status).toBe('none');
      expect(delta(b, p, identity, ['match-by-text'])).toMatchObject({status: 'found', line: 10, patchedLine: 11});
    });
  });
});
