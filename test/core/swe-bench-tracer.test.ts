import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {extractDelta} from '../../source/core/trace/delta.js';
import {LineMap} from '../../source/core/trace/line-map.js';
import {MemoryTrace} from '../../source/core/trace/records.js';
import {SweBenchTracerConverter} from '../../source/core/trace/swe-bench-tracer.js';
import {ROOT} from '../helpers/paths.js';

const SAMPLE = join(ROOT, 'sample-data', 'traces', 'sympy__sympy-20801');

function convert(events: Record<string, unknown>[]): MemoryTrace {
  const c = new SweBenchTracerConverter();
  const trace = new MemoryTrace([{t: 'header', format: 1}]);
  for (const e of events) for (const r of c.convert(e)) trace.add(r);
  for (const r of c.finish()) trace.add(r);
  return trace;
}

const load = (file: string) =>
  readFileSync(join(SAMPLE, file), 'utf8')
    .trim()
    .split('\n')
    .map(l => JSON.parse(l) as Record<string, unknown>);

describe('swe-bench-tracer-py traces', () => {
  it('rebuilds frames from the event order and writes only what changed', () => {
    const t = convert([
      {
        event_id: 0,
        event_type: 'Function',
        line_number: 1,
        statement: 'def test():',
        filepath: '/testbed/t.py',
        function_name: 't:test',
        parameters: {},
      },
      {
        event_id: 1,
        event_type: 'Function',
        line_number: 5,
        statement: 'def f(x):',
        filepath: '/testbed/m.py',
        function_name: 'm:f',
        parameters: {x: 1},
      },
      {
        event_id: 2,
        event_type: 'Line',
        line_number: 6,
        statement: '    y = x + 1',
        filepath: '/testbed/m.py',
        function_name: 'm:f',
        seen_variables: {x: 1, y: 2},
      },
      {
        event_id: 3,
        event_type: 'Return',
        line_number: 7,
        statement: '    return y',
        filepath: '/testbed/m.py',
        function_name: 'm:f',
        return_value: 2,
      },
      {
        event_id: 4,
        event_type: 'Line',
        line_number: 2,
        statement: '    assert f(1) == 3',
        filepath: '/testbed/t.py',
        function_name: 't:test',
        seen_variables: {},
      },
      {
        event_id: 5,
        event_type: 'Exception',
        line_number: 2,
        filepath: '/testbed/t.py',
        function_name: 't:test',
        exception_type: 'AssertionError',
        exception_value: '',
      },
      {
        event_id: 6,
        event_type: 'Return',
        line_number: 2,
        filepath: '/testbed/t.py',
        function_name: 't:test',
        return_value: null,
      },
    ]);
    expect(t.status).toBe('complete');
    expect(t.frame(2)).toMatchObject({fn: 'f', file: 'm.py', parent: 1, defLine: 5});
    expect(t.items(2, 0, 10).map(i => i.kind)).toEqual(['line', 'return']);
    expect(JSON.parse((t.items(2, 0, 10)[0] as {state: string}).state)).toEqual({ch: {y: 2}});
    expect(t.frame(1)?.outcome).toMatchObject({kind: 'exception', exception: {type: 'AssertionError'}});
    expect(t.outcome).toMatchObject({kind: 'failed', exception: {type: 'AssertionError'}});
    expect(t.sourceLine('m.py', 6)).toBe('    y = x + 1');
  });

  it('on the ExplainBench sample of sympy-20801, the delta is in Float.__eq__, the function the fix changed', () => {
    const buggy = convert(load('buggy.jsonl'));
    const fixed = convert(load('fixed.jsonl'));
    expect(buggy.outcome).toMatchObject({kind: 'failed', exception: {type: 'AssertionError'}});
    expect(fixed.outcome).toMatchObject({kind: 'passed'});
    for (const options of [[], ['match-by-text' as const]]) {
      const d = extractDelta({buggy, patched: fixed, map: new LineMap(null), options});
      expect(d).toMatchObject({
        status: 'found',
        kind: 'outcome',
        function: 'Float.__eq__',
        file: 'sympy/core/numbers.py',
      });
      expect(d.buggyOutcome).toMatchObject({kind: 'return', value: 'true'});
      expect(d.patchedOutcome).toMatchObject({kind: 'return', value: 'false'});
    }
  });
});
