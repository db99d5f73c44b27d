/**
 * deltatrace's JSON-lines records (tracer/deltatrace/recorder.py) turned into the rows
 * the store keeps: frames, and each frame's items. Pure: the store feeds it records and
 * writes what it returns; tests build in-memory traces with it.
 */

import {
  ROOT_FID,
  stateHash,
  UNRECORDED,
  type FrameInfo,
  type Item,
  type Outcome,
  type TraceSource,
  type TraceStatus,
} from './model.js';

interface TestResult {
  nodeid: string;
  outcome: string;
  phase?: string;
  file?: string | null;
  line?: number | null;
  exc_type?: string;
  message?: string;
}

export interface OutcomeRecord {
  status: string;
  tests: TestResult[];
  exit_code?: number;
  error?: string;
}

export interface StepRow {
  seq: number;
  fid: number;
  kind: Item['kind'];
  line: number | null;
  state: string;
  /** stateHash(state) (null for call rows) */
  hash?: number | null;
}

export interface FrameRow extends FrameInfo {
  endSeq: number | null;
}

export class RecordError extends Error {}

type Rec = Record<string, unknown>;

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function need<T>(value: T | null | undefined, field: string, rec: Rec): T {
  if (value === null || value === undefined) throw new RecordError(`"${String(rec.t)}" record without "${field}"`);
  return value;
}

/** The root outcome of a test run: its status, with the first failure's exception. */
export function testOutcome(rec: OutcomeRecord | null): Outcome | null {
  if (!rec) return null;
  const failed = rec.tests.find(t => t.outcome === 'failed' || t.outcome === 'error');
  return {
    kind: rec.status,
    ...(failed?.exc_type ? {exception: {type: failed.exc_type, message: failed.message}} : {}),
    line: failed?.line ?? null,
  };
}

/**
 * Why the test's body never ran, or null when it did: the runner found no such test, could not
 * collect or import it, or it errored in its setup. A failure in its body, or an error in its
 * teardown after the body ran, is a run like any other.
 */
export function notRun(rec: OutcomeRecord): string | null {
  if (rec.error) return rec.error.trim().split('\n').at(-1) ?? rec.error;
  if (!rec.tests.length) return 'no test ran';
  if (rec.tests.some(t => (t.phase ?? 'call') === 'call')) return null;
  const setup = rec.tests.find(t => t.outcome === 'error');
  const why = (t: TestResult) =>
    t.exc_type ? ` (${t.exc_type}${t.message ? `: ${t.message.split('\n')[0]}` : ''})` : '';
  if (setup) return `${setup.nodeid} errored in its ${setup.phase ?? 'setup'}${why(setup)}`;
  const skipped = rec.tests[0]!;
  return `${skipped.nodeid} was ${skipped.outcome} in its ${skipped.phase ?? 'setup'}${why(skipped)}`;
}

/**
 * Consumes records in file order. `frame` rows are complete only when the frame ended
 * (the store updates the outcome then), so the sink gets an update call for that.
 */
export class TraceAssembler {
  header: Rec | null = null;
  outcome: OutcomeRecord | null = null;
  truncated: Rec | null = null;
  end: Rec | null = null;
  events = 0;
  frames = 0;
  readonly sources = new Map<string, {text: string | null; truncated: boolean}>();

  constructor(
    private readonly sink: {
      frame(row: FrameRow): void;
      frameEnd(fid: number, outcome: Outcome, endSeq: number): void;
      step(row: StepRow): void;
      source?(file: string, text: string | null, truncated: boolean): void;
    },
  ) {}

  get status(): TraceStatus {
    if (this.truncated) return this.truncated.reason === 'timeout' ? 'timeout' : 'truncated';
    if (!this.end) return 'crashed';
    if (this.outcome && notRun(this.outcome)) return 'error';
    return 'complete';
  }

  add(rec: Rec): void {
    switch (rec.t) {
      case 'header':
        this.header = rec;
        return;
      case 'source': {
        const file = need(rec.file as string, 'file', rec);
        const text = typeof rec.text === 'string' ? rec.text : null;
        this.sources.set(file, {text, truncated: rec.truncated === true});
        this.sink.source?.(file, text, rec.truncated === true);
        return;
      }
      case 'call': {
        const seq = need(num(rec.seq), 'seq', rec);
        const fid = need(num(rec.fid), 'fid', rec);
        const parent = num(rec.parent);
        const callLine = num(rec.call_line);
        this.events += 1;
        this.frames += 1;
        this.sink.frame({
          fid,
          parent,
          fn: need(rec.fn as string, 'fn', rec),
          file: need(rec.file as string, 'file', rec),
          defLine: num(rec.def) ?? 0,
          callSeq: seq,
          callLine,
          resume: rec.resume === true,
          // a frame whose values were not recorded (skeleton, or outside a plan) has no arguments
          args: rec.locals === undefined ? '' : JSON.stringify(rec.locals),
          outcome: null,
          endSeq: null,
        });
        this.sink.step({seq, fid: parent ?? ROOT_FID, kind: 'call', line: callLine, state: `{"callee":${fid}}`});
        return;
      }
      case 'line': {
        this.events += 1;
        if (rec.ch === undefined) {
          // control flow only: which line ran, not what it changed
          this.sink.step({
            seq: need(num(rec.seq), 'seq', rec),
            fid: need(num(rec.fid), 'fid', rec),
            kind: 'line',
            line: need(num(rec.line), 'line', rec),
            state: '',
            hash: UNRECORDED,
          });
          return;
        }
        const state: Rec = {ch: rec.ch ?? {}};
        if (rec.del) state.del = rec.del;
        if (rec.full) state.full = rec.full;
        const text = JSON.stringify(state);
        this.sink.step({
          seq: need(num(rec.seq), 'seq', rec),
          fid: need(num(rec.fid), 'fid', rec),
          kind: 'line',
          line: need(num(rec.line), 'line', rec),
          state: text,
          hash: stateHash(text),
        });
        return;
      }
      case 'return':
      case 'exception': {
        this.events += 1;
        const seq = need(num(rec.seq), 'seq', rec);
        const fid = need(num(rec.fid), 'fid', rec);
        const line = num(rec.line);
        let outcome: Outcome;
        let state: Rec;
        if (rec.locals === undefined && (rec.t === 'exception' || !('value' in rec))) {
          // how the frame ended, not with what
          const exc = (rec.exc ?? {}) as {type?: string};
          outcome =
            rec.t === 'return'
              ? {kind: rec.kind === 'yield' ? 'yield' : 'return', line, unrecorded: true}
              : {kind: 'exception', exception: {type: exc.type ?? '?'}, line, unrecorded: true};
          this.sink.step({seq, fid, kind: rec.t, line, state: '', hash: UNRECORDED});
          this.sink.frameEnd(fid, outcome, seq);
          return;
        }
        if (rec.t === 'return') {
          const kind = rec.kind === 'yield' ? 'yield' : 'return';
          outcome = {kind, value: JSON.stringify(rec.value ?? null), line};
          state = {kind, value: rec.value ?? null, locals: rec.locals ?? {}};
        } else {
          const exc = (rec.exc ?? {}) as {type?: string; message?: string};
          outcome = {kind: 'exception', exception: {type: exc.type ?? '?', message: exc.message}, line};
          state = {exc: rec.exc ?? {}, locals: rec.locals ?? {}};
        }
        const text = JSON.stringify(state);
        this.sink.step({seq, fid, kind: rec.t, line, state: text, hash: stateHash(text)});
        this.sink.frameEnd(fid, outcome, seq);
        return;
      }
      case 'outcome':
        this.outcome = {
          status: String(rec.status),
          tests: (rec.tests as TestResult[]) ?? [],
          exit_code: num(rec.exit_code) ?? undefined,
          error: rec.error as string | undefined,
        };
        return;
      case 'truncated':
        this.truncated = rec;
        return;
      case 'end':
        this.end = rec;
        return;
      default:
        throw new RecordError(`unknown record type "${String(rec.t)}"`);
    }
  }
}

/** A whole trace in memory: for tests and small traces. */
export class MemoryTrace implements TraceSource {
  readonly frames = new Map<number, FrameRow>();
  readonly streams = new Map<number, Item[]>();
  private readonly assembler: TraceAssembler;
  private statusOverride: TraceStatus | undefined;

  constructor(records: Rec[] = []) {
    this.assembler = new TraceAssembler({
      frame: row => this.frames.set(row.fid, row),
      frameEnd: (fid, outcome, endSeq) => {
        const f = this.frames.get(fid);
        if (f) {
          f.outcome = outcome;
          f.endSeq = endSeq;
        }
      },
      step: row => {
        const list = this.streams.get(row.fid) ?? [];
        list.push(toItem(row));
        this.streams.set(row.fid, list);
      },
    });
    for (const rec of records) this.assembler.add(rec);
  }

  add(rec: Rec): this {
    this.assembler.add(rec);
    return this;
  }

  setStatus(status: TraceStatus): this {
    this.statusOverride = status;
    return this;
  }

  get status(): TraceStatus {
    return this.statusOverride ?? this.assembler.status;
  }

  get outcome(): Outcome | null {
    return testOutcome(this.assembler.outcome);
  }

  get sources() {
    return this.assembler.sources;
  }

  frame(fid: number): FrameInfo | undefined {
    return this.frames.get(fid);
  }

  items(fid: number, afterSeq: number, limit: number): Item[] {
    const list = this.streams.get(fid) ?? [];
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.seq <= afterSeq) lo = mid + 1;
      else hi = mid;
    }
    return list.slice(lo, lo + limit);
  }

  findFrame(file: string, fn: string): FrameInfo | undefined {
    let best: FrameRow | undefined;
    for (const f of this.frames.values())
      if (f.file === file && f.fn === fn && (!best || f.callSeq < best.callSeq)) best = f;
    return best;
  }

  sourceLine(file: string, line: number): string | undefined {
    return this.assembler.sources.get(file)?.text?.split('\n')[line - 1];
  }
}

export function toItem(row: StepRow): Item {
  // the call row's state is exactly {"callee":N}
  if (row.kind === 'call') return {kind: 'call', seq: row.seq, line: row.line, callee: Number(row.state.slice(10, -1))};
  const hash = row.hash ?? stateHash(row.state);
  if (row.kind === 'line') return {kind: 'line', seq: row.seq, line: row.line ?? 0, state: row.state, hash};
  return {kind: row.kind, seq: row.seq, line: row.line, state: row.state, hash};
}
