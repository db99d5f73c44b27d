/**
 * Crafted traces for Algorithm 1 tests: the same records deltatrace writes, built by a
 * tiny DSL so each test states its frame tree directly.
 */
import {MemoryTrace} from '../../source/core/trace/records.js';

type Value = unknown;
type Body = (t: TraceDsl) => void;
type End = {ret?: Value; yield?: Value; exc?: {type: string; message?: string}; line?: number};

export class TraceDsl {
  readonly records: Record<string, unknown>[] = [{t: 'header', format: 1}];
  private seq = 0;
  private fid = 0;
  private readonly stack: {fid: number; line: number | null}[] = [];
  private readonly lastLine = new Map<number, number>();

  call(fn: string, args: Record<string, Value>, body: Body, end: End = {ret: null}, file = 'm.py', defLine = 1): this {
    const fid = ++this.fid;
    const parent = this.stack.at(-1);
    this.records.push({
      t: 'call',
      seq: ++this.seq,
      fid,
      parent: parent?.fid ?? null,
      fn,
      file,
      def: defLine,
      ...(parent?.line != null ? {call_line: parent.line} : {}),
      locals: args,
    });
    this.stack.push({fid, line: null});
    body(this);
    this.stack.pop();
    const line = end.line ?? this.lastLine.get(fid) ?? defLine;
    if (end.exc) this.records.push({t: 'exception', seq: ++this.seq, fid, line, exc: end.exc, locals: {}});
    else if ('yield' in end)
      this.records.push({t: 'return', seq: ++this.seq, fid, line, kind: 'yield', value: end.yield, locals: {}});
    else
      this.records.push({t: 'return', seq: ++this.seq, fid, line, kind: 'return', value: end.ret ?? null, locals: {}});
    return this;
  }

  /** a line that makes calls: the calls happen while the line runs, then it finishes */
  line(line: number, ch: Record<string, Value> = {}, calls?: Body, extra: Record<string, unknown> = {}): this {
    const frame = this.stack.at(-1)!;
    frame.line = line;
    calls?.(this);
    this.records.push({t: 'line', seq: ++this.seq, fid: frame.fid, line, ch, ...extra});
    this.lastLine.set(frame.fid, line);
    frame.line = null;
    return this;
  }

  build(
    status: 'passed' | 'failed' = 'passed',
    opts: {end?: boolean; truncated?: boolean; exc?: string} = {},
  ): MemoryTrace {
    const recs = [...this.records];
    if (opts.truncated) recs.push({t: 'truncated', reason: 'max-events', limit: this.seq});
    recs.push({
      t: 'outcome',
      status,
      tests: [
        {nodeid: 't.py::test', outcome: status, ...(opts.exc ? {exc_type: opts.exc, message: 'boom', line: 3} : {})},
      ],
    });
    if (opts.end !== false) recs.push({t: 'end', events: this.seq});
    return new MemoryTrace(recs);
  }
}

export const dsl = () => new TraceDsl();
