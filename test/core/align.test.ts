import {describe, expect, it} from 'vitest';
import {alignTraces, rowOfDelta} from '../../source/core/trace/align.js';
import {extractDelta} from '../../source/core/trace/delta.js';
import {LineMap} from '../../source/core/trace/line-map.js';
import {replayLocals} from '../../source/core/trace/locals.js';
import {formatValue} from '../../source/core/trace/values.js';
import {evalWatch, planWatch} from '../../source/core/trace/watch.js';
import {dsl} from '../helpers/trace-builder.js';

const identity = new LineMap(null);

describe('aligned stepper rows', () => {
  const prog = (second: number, ret: number) =>
    dsl()
      .call(
        'test',
        {},
        t =>
          t
            .line(2, {}, c =>
              c.call('f', {x: 1}, f => f.line(10, {a: 1}).line(second, {b: ret}).line(13, {}), {ret}, 'm.py', 9),
            )
            .line(3, {r: ret}),
        {ret: null},
        't.py',
      )
      .build();

  it('pairs matched statements, enters matched calls one level deeper, and splits where control flow does', () => {
    const {rows, truncated} = alignTraces(prog(11, 1), prog(12, 2), identity);
    expect(truncated).toBe(false);
    const shape = rows.map(
      r => `${r.kind}:${r.depth}:${r.b?.kind ?? '-'}${r.b?.line ?? ''}/${r.p?.kind ?? '-'}${r.p?.line ?? ''}`,
    );
    expect(shape).toEqual([
      'match:0:call1/call1',
      'match:1:call9/call9',
      'match:2:line10/line10',
      'buggy-only:2:line11/-',
      'patched-only:2:-/line12',
      'match:2:line13/line13',
      'match:2:return13/return13',
      'match:1:line2/line2',
      'match:1:line3/line3',
      'match:1:return3/return3',
    ]);
    expect(rows[6]!.same).toBe(false); // f returned 1 vs 2
    expect(rows[2]!.same).toBe(true);
  });

  it('finds the delta row by either side', () => {
    const b = prog(11, 1);
    const p = prog(12, 2);
    const d = extractDelta({buggy: b, patched: p, map: identity});
    const {rows} = alignTraces(b, p, identity);
    const at = rowOfDelta(rows, d.seqB, d.seqP);
    expect(rows[at]).toMatchObject({kind: 'buggy-only', b: {line: 11}});
  });

  it('flattens a call only one side makes, and stops at maxRows', () => {
    const b = dsl()
      .call(
        'test',
        {},
        t => t.line(2, {}, c => c.call('g', {}, g => g.line(20).line(21), {ret: 1}, 'm.py', 19)),
        {ret: null},
        't.py',
      )
      .build();
    const p = dsl()
      .call('test', {}, t => t.line(2), {ret: null}, 't.py')
      .build();
    const {rows} = alignTraces(b, p, identity);
    expect(rows.filter(r => r.kind === 'buggy-only').map(r => `${r.depth}:${r.b?.kind}${r.b?.line}`)).toEqual([
      '1:call19',
      '2:line20',
      '2:line21',
      '2:return21',
    ]);
    expect(alignTraces(b, p, identity, 3)).toMatchObject({truncated: true, rows: {length: 3}});
  });
});

describe('locals, watches and values', () => {
  const args = JSON.stringify({
    self: {$obj: 'm.Acc', attrs: {items: [1, 2, {$more: 5}], name: 'a'}},
    d: {$dict: [['k', 1]]},
  });

  it('replays a frame: entry snapshot, changes, deletions', () => {
    const locals = replayLocals(args, [JSON.stringify({ch: {x: 1}}), JSON.stringify({ch: {x: 2, y: 3}, del: ['d']})]);
    expect([...locals.keys()]).toEqual(['self', 'x', 'y']);
    expect(locals.get('x')).toBe(2);
  });

  it('evaluates plain reads of recorded names, and refuses anything else', () => {
    const locals = replayLocals(args, []);
    const run = (e: string) => evalWatch(planWatch(e)!, locals);
    expect(run('self.name')).toEqual({value: 'a'});
    expect(run('self.items[1]')).toEqual({value: 2});
    expect(run('len(self.items)')).toEqual({value: 7}); // 2 recorded + 5 more
    expect(run("d['k']")).toEqual({value: 1});
    expect(run('self.items[5]')).toEqual({error: 'beyond the recorded items'});
    expect(run('nope')).toMatchObject({error: expect.stringContaining('NameError')});
    expect(planWatch('self.f()')).toBeNull();
    expect(planWatch('a + b')).toBeNull();
  });

  it('renders encoded values the way Python prints them', () => {
    expect(formatValue({$tuple: ['-', '-count']})).toBe("('-', '-count')");
    expect(formatValue({$tuple: [1]})).toBe('(1,)');
    expect(formatValue({$obj: 'm.Item', attrs: {name: 'a', qty: 3}})).toBe("Item(name='a', qty=3)");
    expect(formatValue({$dict: [['a', null], {$more: 2}]})).toBe("{'a': None, …+2}");
    expect(formatValue({$float: 'nan'})).toBe('nan');
    expect(formatValue({$set: []})).toBe('set()');
    expect(formatValue({$str: 'abc', len: 900})).toBe("'abc'…(900 chars)");
  });
});
