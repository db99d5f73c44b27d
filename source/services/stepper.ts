/**
 * The aligned trace stepper's model: one traced pair, its alignment, its delta, and what
 * each side shows at a row (source, locals, call stack). The explorer renders it; the
 * `deltalens steps` command prints the same rows as JSON.
 */
import {alignTraces, rowOfDelta, type AlignedRow, type Side} from '../core/trace/align.js';
import type {DeltaResult} from '../core/trace/delta.js';
import type {Outcome} from '../core/trace/model.js';
import {formatValue} from '../core/trace/values.js';
import {LineMap} from '../core/trace/line-map.js';
import {replayLocals, type Locals} from '../core/trace/locals.js';
import {evalWatch, planWatch} from '../core/trace/watch.js';
import type {Db} from '../store/db.js';
import {getPair, getTrace, latestDelta, StoredTrace, type PairRow, type TraceRow} from '../store/traces.js';

export interface SideView {
  present: boolean;
  /** the row does not move this side: it shows where the side last was */
  waiting: boolean;
  fn: string;
  file: string;
  line: number | null;
  kind: Side['kind'] | null;
  locals: [string, unknown][];
  /** whether the values here were recorded (a planned trace has them only around the delta) */
  recorded: boolean;
  stack: {fn: string; file: string; line: number | null}[];
  source: string[] | null;
  /** on the row that ends the frame (return, exception): what it returns or raises */
  result?: string;
}

/** A side with nothing to show (no row yet, or no rows at all). */
export const EMPTY_SIDE: SideView = {
  present: false,
  waiting: true,
  fn: '',
  file: '',
  line: null,
  kind: null,
  locals: [],
  recorded: true,
  stack: [],
  source: null,
};

export interface DeltaPoint {
  file: string;
  line: number;
  hit: number;
  timing: 'before' | 'after';
  fn: string;
  defLine: number | null;
  inputs: Locals | null;
  locals: Locals | null;
  source: string[] | null;
}

export interface WatchValue {
  expr: string;
  source: 'recorded' | 'live' | 'unavailable';
  buggy?: {value?: unknown; error?: string};
  patched?: {value?: unknown; error?: string};
  note?: string;
}

export interface StepRowData {
  /** 1-based, as the stepper shows it */
  row: number;
  depth: number;
  what: string;
  delta: boolean;
  differs: string[];
  buggy: StepSideData | null;
  patched: StepSideData | null;
}

interface StepSideData {
  fn: string;
  file: string;
  line: number | null;
  kind: Side['kind'] | null;
  waiting: boolean;
  recorded: boolean;
  locals: Record<string, unknown>;
  stack: {fn: string; file: string; line: number | null}[];
  /** on the row that ends the frame: what it returns or raises */
  result?: string;
}

/** Locals of two different functions are not comparable. */
function sameFunction(a: {fn: string; file: string}, b: {fn: string; file: string}): boolean {
  return a.fn === b.fn && a.file === b.file;
}

/** The names whose values differ between two sides' locals (none when either was not recorded). */
function differingNames(b: Locals | null, p: Locals | null): string[] {
  if (!b || !p) return [];
  const names = new Set([...b.keys(), ...p.keys()]);
  return [...names].filter(n => JSON.stringify(b.get(n)) !== JSON.stringify(p.get(n))).sort();
}

export class StepperModel {
  readonly rows: AlignedRow[];
  readonly truncated: boolean;
  readonly deltaRow: number;
  private readonly b: StoredTrace;
  private readonly p: StoredTrace;

  constructor(
    db: Db,
    readonly pair: PairRow,
    readonly delta: (DeltaResult & {id: number}) | null,
    readonly buggy: TraceRow,
    readonly patched: TraceRow,
  ) {
    this.b = new StoredTrace(db, buggy.id);
    this.p = new StoredTrace(db, patched.id);
    const alignment = alignTraces(this.b, this.p, new LineMap(pair.changes));
    this.rows = alignment.rows;
    this.truncated = alignment.truncated;
    this.deltaRow = delta ? rowOfDelta(this.rows, delta.seqB, delta.seqP) : -1;
  }

  /**
   * The side's position at `row`: its own item, or — waiting — where it last was. A side whose
   * last item ended a frame (return, exception) is back in the caller, on the line that made the
   * call: that is where it waits, not in the callee that already returned.
   */
  private position(row: number, which: 'b' | 'p'): {side: Side; waiting: boolean} | null {
    for (let r = row; r >= 0; r--) {
      const s = this.rows[r]?.[which];
      if (!s) continue;
      if (r === row || (s.kind !== 'return' && s.kind !== 'exception')) return {side: s, waiting: r !== row};
      const trace = which === 'b' ? this.b : this.p;
      const ended = trace.frame(s.fid);
      const caller = ended?.parent !== null && ended?.parent !== undefined ? trace.frame(ended.parent) : undefined;
      if (!ended || !caller) return {side: s, waiting: true};
      return {
        side: {seq: s.seq, fid: caller.fid, kind: 'line', line: ended.callLine, file: caller.file, fn: caller.fn},
        waiting: true,
      };
    }
    return null;
  }

  /** The side's variables at `row`; null where the values were not recorded (a planned trace). */
  localsAt(row: number, which: 'b' | 'p'): Locals | null {
    const pos = this.position(row, which);
    if (!pos) return new Map();
    const trace = which === 'b' ? this.b : this.p;
    const frame = trace.frame(pos.side.fid);
    if (!frame) return new Map();
    if (pos.side.kind === 'call') return frame.args === '' ? null : replayLocals(frame.args, []);
    if (!trace.recordedAt(pos.side.seq)) return null;
    return replayLocals(frame.args, trace.frameStates(frame.fid, pos.side.seq));
  }

  view(row: number, which: 'b' | 'p'): SideView {
    const pos = this.position(row, which);
    const trace = which === 'b' ? this.b : this.p;
    const locals = this.localsAt(row, which);
    if (!pos) return EMPTY_SIDE;
    const stack: SideView['stack'] = [];
    let frame = trace.frame(pos.side.fid);
    let line: number | null = pos.side.line;
    while (frame) {
      stack.push({fn: frame.fn, file: frame.file, line});
      line = frame.callLine;
      frame = frame.parent === null ? undefined : trace.frame(frame.parent);
    }
    const ended =
      !pos.waiting && (pos.side.kind === 'return' || pos.side.kind === 'exception')
        ? trace.frame(pos.side.fid)?.outcome
        : undefined;
    return {
      ...(ended ? {result: outcomeText(ended)} : {}),
      present: true,
      waiting: pos.waiting,
      fn: pos.side.fn,
      file: pos.side.file,
      line: pos.side.line,
      kind: pos.side.kind,
      locals: [...(locals ?? [])],
      recorded: locals !== null,
      stack,
      source: pos.side.file ? trace.sourceLines(pos.side.file) : null,
    };
  }

  /** What a row is, in words: the stepper's status line and `steps`' "what" (`differs`: the names whose values differ there). */
  rowWhat(row: number, differs = this.differing(row)): string {
    const r = this.rows[row];
    if (!r) return 'no rows';
    if (r.kind !== 'match') {
      const s = r.kind === 'buggy-only' ? r.b : r.p;
      return `control flow split: only ${r.kind === 'buggy-only' ? 'buggy' : 'patched'} runs ${s?.kind} ${s?.line ?? ''}`.trimEnd();
    }
    const what =
      r.b?.kind === 'call'
        ? 'same call'
        : r.b?.kind === 'return' || r.b?.kind === 'exception'
          ? 'same end of the call'
          : 'same statement';
    // the values in scope, not only what this step changed: a row that changes the same
    // things on both sides can still hold different values from before
    return differs.length
      ? `${what}, values differ`
      : r.same
        ? `${what}, same values`
        : `${what}, what it changes differs`;
  }

  /** The variables whose values differ between the two sides at a row (both on this row, recorded, in the same function). */
  differing(row: number): string[] {
    const b = this.position(row, 'b');
    const p = this.position(row, 'p');
    // a side that waits is elsewhere in the program: its locals are not this row's to compare
    if (!b || !p || b.waiting || p.waiting || !sameFunction(b.side, p.side)) return [];
    return differingNames(this.localsAt(row, 'b'), this.localsAt(row, 'p'));
  }

  /** One row as data: both sides (where they are, their locals, their stacks) and what differs. */
  rowData(row: number): StepRowData {
    const r = this.rows[row]!;
    const views = {b: this.view(row, 'b'), p: this.view(row, 'p')};
    const side = (v: SideView): StepSideData | null =>
      v.present
        ? {
            fn: v.fn,
            file: v.file,
            line: v.line,
            kind: v.kind,
            waiting: v.waiting,
            recorded: v.recorded,
            locals: Object.fromEntries(v.locals),
            stack: v.stack,
            ...(v.result !== undefined ? {result: v.result} : {}),
          }
        : null;
    // the locals the views already replayed: compared once, not replayed again
    const differs =
      views.b.present &&
      views.p.present &&
      !views.b.waiting &&
      !views.p.waiting &&
      sameFunction(views.b, views.p) &&
      views.b.recorded &&
      views.p.recorded
        ? differingNames(new Map(views.b.locals), new Map(views.p.locals))
        : [];
    return {
      row: row + 1,
      depth: r.depth,
      what: this.rowWhat(row, differs),
      delta: row === this.deltaRow,
      differs,
      buggy: side(views.b),
      patched: side(views.p),
    };
  }

  /** Watch from recorded state when the expression only reads captured names and attributes. */
  watchRecorded(expr: string, row: number): WatchValue {
    const plan = planWatch(expr);
    if (!plan)
      return {expr, source: 'unavailable', note: 'not a plain read of recorded names: needs a live re-run (press L)'};
    const one = (which: 'b' | 'p') => {
      const locals = this.localsAt(row, which);
      if (!locals) return {error: 'values not recorded here: needs a live re-run (press L)'};
      const r = evalWatch(plan, locals);
      return 'value' in r ? {value: r.value} : {error: r.error};
    };
    return {expr, source: 'recorded', buggy: one('b'), patched: one('p')};
  }

  /**
   * The first row at or after `from` that runs a function whose name contains `text`, or
   * whose step changes a variable named `text`.
   */
  findRow(text: string, from: number): number {
    if (!text) return -1;
    const bySeq = (which: 'b' | 'p') => {
      const m = new Map<number, number>();
      this.rows.forEach((r, i) => {
        const s = r[which];
        if (s && i >= from) m.set(s.seq, i);
      });
      return m;
    };
    let best = -1;
    for (const [which, trace] of [
      ['b', this.b],
      ['p', this.p],
    ] as const) {
      const rows = bySeq(which);
      const seqs = trace.stepsChanging(text);
      for (const seq of seqs) {
        const row = rows.get(seq);
        if (row !== undefined && (best < 0 || row < best)) {
          best = row;
          break;
        }
      }
    }
    for (let i = from; i < this.rows.length && (best < 0 || i < best); i++) {
      const r = this.rows[i]!;
      if (r.b?.fn.includes(text) || r.p?.fn.includes(text)) return i;
    }
    return best;
  }

  /** The arguments of deltatrace eval for one side at a row: file, line and hit count. */
  /**
   * The delta point on one side, as a question needs it (ExplainBench §5.3): the line, which
   * execution of it, the timing; the frame's function, its arguments at entry (the inputs) and
   * the variables recorded there. Null without a found delta, or when this side never got there.
   */
  /** A side's delta point: the place, execution, frame and locals questions ask about. */
  deltaPoint(which: 'b' | 'p'): DeltaPoint | null {
    return deltaPointIn(which === 'b' ? this.b : this.p, this.delta, which);
  }

  evalTarget(
    row: number,
    which: 'b' | 'p',
  ): {file: string; line: number; hit: number; timing: 'before' | 'after'} | null {
    const pos = this.position(row, which);
    if (!pos || pos.side.line === null || !pos.side.file) return null;
    const trace = which === 'b' ? this.b : this.p;
    if (pos.side.kind === 'line') {
      return {
        file: pos.side.file,
        line: pos.side.line,
        hit: trace.lineHits(pos.side.file, pos.side.line, pos.side.seq),
        timing: 'after',
      };
    }
    return null;
  }
}

/**
 * A side's delta point read from the stored trace alone — the item at the delta's step, its frame
 * and locals — without aligning the two traces (the stepper aligns a whole pair, up to 200,000
 * rows): what questions build asks for.
 */
export function deltaPointOf(db: Db, pairId: number, which: 'b' | 'p'): DeltaPoint | null {
  const pair = getPair(db, pairId);
  const traceId = which === 'b' ? pair?.buggyTrace : pair?.patchedTrace;
  return traceId ? deltaPointIn(new StoredTrace(db, traceId), latestDelta(db, pairId), which) : null;
}

function deltaPointIn(trace: StoredTrace, d: DeltaResult | null, which: 'b' | 'p'): DeltaPoint | null {
  if (d?.status !== 'found' || !d.file) return null;
  const seq = which === 'b' ? d.seqB : d.seqP;
  const line = which === 'b' ? d.line : d.patchedLine;
  if (seq === null || line === null) return null;
  const at = trace.itemAt(seq);
  // a call's side is its callee's frame, as the stepper's rows have it
  let frame = at ? trace.frame(at.callee ?? at.fid) : trace.findFrame(d.file, d.function ?? '');
  const replay = (f: NonNullable<typeof frame>, upto: number): Locals | null =>
    trace.recordedAt(upto) ? replayLocals(f.args, trace.frameStates(f.fid, upto)) : null;
  let locals: Locals | null = null;
  if (at && frame)
    locals = at.callee === null ? replay(frame, seq) : frame.args === '' ? null : replayLocals(frame.args, []);
  // a delta at a call (the sides call different functions from the delta's line): the point is
  // the line in the caller, with the caller's locals as the call starts — not the callee
  const caller =
    at?.callee != null && frame?.parent != null && frame.callLine === line ? trace.frame(frame.parent) : undefined;
  if (caller) {
    frame = caller;
    const before = lastStepBefore(trace, caller.fid, seq);
    locals = before === null ? null : replay(caller, before);
  }
  return {
    file: d.file,
    line,
    hit: Math.max(1, trace.lineHits(d.file, line, seq)),
    timing: d.timing ?? 'before',
    fn: frame?.fn ?? d.function ?? '',
    defLine: frame?.defLine ?? null,
    inputs: frame && frame.args !== '' ? replayLocals(frame.args, []) : null,
    locals,
    source: trace.sourceLines(d.file),
  };
}

/** The seq of a frame's last line or end step before `seq` (its calls skipped), a page at a time. */
function lastStepBefore(trace: StoredTrace, fid: number, seq: number): number | null {
  let before: number | null = null;
  for (let after = -1; ; ) {
    const page = trace.items(fid, after, 500);
    for (const item of page) if (item.seq < seq && item.kind !== 'call') before = item.seq;
    if (page.length < 500 || page.at(-1)!.seq >= seq) return before;
    after = page.at(-1)!.seq;
  }
}

export function openStepper(db: Db, pairId: number): StepperModel | {error: string} {
  const pair = getPair(db, pairId);
  if (!pair) return {error: `no traced pair #${pairId}`};
  const buggy = pair.buggyTrace ? getTrace(db, pair.buggyTrace) : null;
  const patched = pair.patchedTrace ? getTrace(db, pair.patchedTrace) : null;
  if (!buggy || !patched) return {error: `pair #${pairId} lacks a ${buggy ? 'patched' : 'buggy'} trace`};
  return new StepperModel(db, pair, latestDelta(db, pairId), buggy, patched);
}

/** What a frame's end did, in words: "returns 28", "raises ValueError: cycle at a", "yields 1". */
export function outcomeText(o: Outcome): string {
  if (o.exception) return `raises ${o.exception.type}${o.exception.message ? `: ${o.exception.message}` : ''}`;
  const value = o.value !== undefined ? formatValue(JSON.parse(o.value), 200) : '(value not recorded)';
  return `${o.kind === 'yield' ? 'yields' : o.kind === 'return' ? 'returns' : o.kind} ${value}`;
}
