/**
 * Algorithm 1's view of a stored trace (the TraceSource port of core/trace/model.ts), read
 * lazily: frames in batches, items from chunks decoded on demand, state texts only when a
 * comparison or a view needs them.
 *
 * Storage 2 keeps no row per item: a frame's own items are the seqs between its start and end
 * that lie outside its children's ranges, read from the chunks that hold them. Storage 1
 * (traces made before migration 009) reads its trace_step rows as it always did.
 */
import {
  ROOT_FID,
  UNRECORDED,
  type FrameInfo,
  type FrameValues,
  type Item,
  type Outcome,
  type TraceSource,
  type TraceStatus,
} from '../core/trace/model.js';
import {testOutcome, toItem, type OutcomeRecord, type StepRow} from '../core/trace/records.js';
import type {Db} from './db.js';
import {
  decodeChunk,
  decodeChunks,
  KIND_NAME,
  lowerBound,
  stateAt,
  UNRECORDED_FLAG,
  unpackText,
  type Window,
} from './trace-chunks.js';

/** A step whose state text is read from the store only when asked for. */
class LazyStep {
  constructor(
    private readonly source: StoredTrace,
    readonly kind: 'line' | 'return' | 'exception',
    readonly seq: number,
    readonly line: number | null,
    readonly hash: number,
  ) {}

  get state(): string {
    return this.hash === UNRECORDED ? '' : this.source.stateOf(this.seq);
  }
}

type WindowRow = [number, number, StepRow['kind'], number | null, string | null, number | null];
const WINDOW_CHUNKS = 8;
const FRAME_BATCH = 1024;
const CHUNK_CACHE = 32;

interface FrameTree {
  /** children of frame f are kids[start[f]] … kids[start[f + 1] - 1] (f = 0: the top frames) */
  start: Int32Array;
  kids: Int32Array;
  callSeq: Float64Array;
  /** -1: never ended */
  endSeq: Float64Array;
}

interface Child {
  callSeq: number;
  /** the seq of the child's end item; null for a frame that never ended */
  endSeq: number | null;
}

export class StoredTrace implements TraceSource {
  readonly status: TraceStatus;
  readonly outcome: Outcome | null;
  /** 1: trace_step rows; 2: compressed chunks only */
  readonly storage: number;
  private readonly frameCache = new Map<number, FrameInfo & {endSeq: number | null}>();
  private readonly sourceCache = new Map<string, string[] | null>();
  private readonly childCache = new Map<number, Child[]>();
  private readonly chunkCache = new Map<number, Window & {first: number; last: number}>();
  private readonly qFind;
  private readonly qSource;
  private readonly qChunkAt;
  private readonly qChunks;
  private readonly qFrames;
  private window: Window | null = null;
  private tree: FrameTree | null = null;
  private recent: (Window & {first: number; last: number}) | null = null;
  private lastSeq: number | null = null;

  constructor(
    private readonly db: Db,
    readonly id: number,
  ) {
    const row = db.prepare('SELECT status, outcome, storage FROM trace WHERE id = ?').get(id) as
      | {status: TraceStatus; outcome: string | null; storage: number}
      | undefined;
    if (!row) throw new Error(`no trace with id ${id}`);
    this.status = row.status === ('ingesting' as TraceStatus) ? 'crashed' : row.status;
    this.outcome = testOutcome(row.outcome ? (JSON.parse(row.outcome) as OutcomeRecord) : null);
    this.storage = row.storage;
    this.qChunkAt = db
      .prepare(`SELECT first_seq FROM trace_chunk WHERE trace = ? AND first_seq <= ? ORDER BY first_seq DESC LIMIT 1`)
      .pluck();
    this.qChunks = db.prepare(
      `SELECT first_seq AS first, last_seq AS last, n, data, states FROM trace_chunk WHERE trace = ? AND first_seq >= ? ORDER BY first_seq LIMIT ?`,
    );
    this.qFrames = db
      .prepare(
        `SELECT fid, parent_fid, function, file, def_line, call_seq, call_line, resume, args, outcome, end_seq FROM frame WHERE trace = ? AND fid >= ? ORDER BY fid LIMIT ?`,
      )
      .raw();
    this.qFind = db
      .prepare(`SELECT fid FROM frame WHERE trace = ? AND file = ? AND function = ? ORDER BY call_seq LIMIT 1`)
      .pluck();
    this.qSource = db
      .prepare(
        `SELECT coalesce(s.text, t.text) FROM trace_source s LEFT JOIN source_text t ON t.hash = s.hash WHERE s.trace = ? AND s.file = ?`,
      )
      .pluck();
  }

  /** Every frame's arguments and result, in call order (one pass over the frame table). */
  *frameValues(): Generator<FrameValues> {
    const q = this.db.prepare('SELECT function, file, args, outcome FROM frame WHERE trace = ? ORDER BY fid').raw();
    for (const r of q.iterate(this.id) as IterableIterator<unknown[]>) {
      yield {
        fn: r[0] as string,
        file: r[1] as string,
        args: r[2] === null ? '' : unpackText(r[2] as string | Buffer),
        outcome: r[3] ? (JSON.parse(unpackText(r[3] as string | Buffer)) as Outcome) : null,
      };
    }
  }

  frame(fid: number): (FrameInfo & {endSeq: number | null}) | undefined {
    if (fid === ROOT_FID) return undefined;
    const cached = this.frameCache.get(fid);
    if (cached) return cached;
    // frames are numbered in call order, so the next ones are usually needed next; a walk that
    // goes back up to callers keeps a run of 40,000 frames (the heavy sympy case) in memory
    // rather than reading batches again (re-run comparison 2.6 → 1.9 s there; +14 MB on the
    // 1.15 M-step synthetic pair)
    if (this.frameCache.size > 64 * FRAME_BATCH) this.frameCache.clear();
    for (const r of this.qFrames.all(this.id, fid, FRAME_BATCH) as unknown[][]) {
      this.frameCache.set(r[0] as number, {
        fid: r[0] as number,
        parent: r[1] as number | null,
        fn: r[2] as string,
        file: r[3] as string,
        defLine: r[4] as number,
        callSeq: r[5] as number,
        callLine: r[6] as number | null,
        resume: r[7] === 1,
        args: r[8] === null ? (this.storage === 1 ? '{}' : '') : unpackText(r[8] as string | Buffer),
        outcome: r[9] ? (JSON.parse(unpackText(r[9] as string | Buffer)) as Outcome) : null,
        endSeq: r[10] as number | null,
      });
    }
    return this.frameCache.get(fid);
  }

  items(fid: number, afterSeq: number, limit: number): Item[] {
    return this.storage === 1 ? this.itemsV1(fid, afterSeq, limit) : this.itemsV2(fid, afterSeq, limit);
  }

  // -- storage 2 --------------------------------------------------------------------------

  private children(fid: number): Child[] {
    let kids = this.childCache.get(fid);
    if (!kids) {
      if (this.childCache.size > 4096) this.childCache.clear();
      const t = this.frameTree();
      kids = [];
      if (fid < t.start.length - 1) {
        for (let i = t.start[fid]!; i < t.start[fid + 1]!; i++) {
          const k = t.kids[i]!;
          kids.push({callSeq: t.callSeq[k]!, endSeq: t.endSeq[k]! < 0 ? null : t.endSeq[k]!});
        }
      }
      this.childCache.set(fid, kids);
    }
    return kids;
  }

  /**
   * Every frame's children, read in one pass (a query per frame cost more than the walk
   * itself on traces of 40,000 frames). Frames are numbered in call order, so each parent's
   * children come out ordered by their call.
   */
  private frameTree(): FrameTree {
    if (this.tree) return this.tree;
    const maxFid =
      (this.db.prepare('SELECT max(fid) FROM frame WHERE trace = ?').pluck().get(this.id) as number | null) ?? 0;
    const parent = new Int32Array(maxFid + 1).fill(-1);
    const callSeq = new Float64Array(maxFid + 1);
    const endSeq = new Float64Array(maxFid + 1).fill(-1);
    const count = new Int32Array(maxFid + 2);
    for (const [fid, par, call, end] of this.db
      .prepare('SELECT fid, coalesce(parent_fid, 0), call_seq, end_seq FROM frame WHERE trace = ? ORDER BY fid')
      .raw()
      .iterate(this.id) as Iterable<[number, number, number, number | null]>) {
      parent[fid] = par;
      callSeq[fid] = call;
      if (end !== null) endSeq[fid] = end;
      count[par + 1]!++;
    }
    const start = new Int32Array(maxFid + 2);
    for (let f = 0; f <= maxFid; f++) start[f + 1] = start[f]! + count[f + 1]!;
    const fill = start.slice(0, maxFid + 1);
    const kids = new Int32Array(start[maxFid + 1]!);
    for (let fid = 1; fid <= maxFid; fid++) if (parent[fid]! >= 0) kids[fill[parent[fid]!]!++] = fid;
    return (this.tree = {start, kids, callSeq, endSeq});
  }

  private maxSeq(): number {
    if (this.lastSeq === null)
      this.lastSeq =
        (this.db.prepare('SELECT max(last_seq) FROM trace_chunk WHERE trace = ?').pluck().get(this.id) as
          | number
          | null) ?? 0;
    return this.lastSeq;
  }

  /** The decoded chunk holding `seq`, or null when no chunk does. */
  private chunkAt(seq: number): (Window & {first: number; last: number}) | null {
    const recent = this.recent;
    if (recent && seq >= recent.first && seq <= recent.last) return recent;
    for (const w of this.chunkCache.values()) {
      if (seq >= w.first && seq <= w.last) return (this.recent = w);
    }
    const first = this.qChunkAt.get(this.id, seq) as number | undefined;
    if (first === undefined) return null;
    let w = this.chunkCache.get(first);
    if (!w) {
      const row = this.qChunks.get(this.id, first, 1) as
        | {first: number; last: number; n: number; data: Buffer; states: Buffer | null}
        | undefined;
      if (!row) return null;
      w = {...decodeChunk(row.data, row.states), first: row.first, last: row.last};
      if (this.chunkCache.size >= CHUNK_CACHE) this.chunkCache.delete(this.chunkCache.keys().next().value!);
      this.chunkCache.set(first, w);
    }
    if (seq > w.last) return null;
    this.recent = w;
    return w;
  }

  private itemsV2(fid: number, afterSeq: number, limit: number): Item[] {
    const end = fid === ROOT_FID ? this.maxSeq() : (this.frame(fid)?.endSeq ?? this.maxSeq());
    const kids = this.children(fid);
    const out: Item[] = [];
    let s = afterSeq + 1;
    while (out.length < limit && s <= end) {
      // inside a child's range (its items and its children's): skip to its end
      const k = lowerBoundBy(kids, s);
      const prev = kids[k - 1];
      if (prev && (prev.endSeq === null || prev.endSeq >= s)) {
        if (prev.endSeq === null) break; // a child that never ended: nothing of ours follows
        s = prev.endSeq + 1;
        continue;
      }
      // every seq from s to the next child's call item (included) is ours
      const segEnd = Math.min(end, kids[k]?.callSeq ?? end);
      const w = this.chunkAt(s);
      if (!w) break;
      let i = lowerBound(w.seq, s, w.n);
      for (; i < w.n && w.seq[i]! <= segEnd && out.length < limit; i++) {
        if (w.fid[i] === fid) out.push(this.itemOf(w, i));
      }
      s = i < w.n ? w.seq[i]! : w.last + 1;
    }
    return out;
  }

  private itemOf(w: Window, i: number): Item {
    const code = w.kind[i]!;
    const kind = KIND_NAME[code & 3]!;
    const line = w.line[i] === 0 ? null : w.line[i]!;
    if (kind === 'call') return {kind, seq: w.seq[i]!, line, callee: w.aux[i]!};
    const hash = code & UNRECORDED_FLAG ? UNRECORDED : w.aux[i]!;
    return new LazyStep(this, kind, w.seq[i]!, kind === 'line' ? (line ?? 0) : line, hash) as Item;
  }

  // -- storage 1 --------------------------------------------------------------------------

  private itemsV1(fid: number, afterSeq: number, limit: number): Item[] {
    // The walk reads items in seq order almost always (into a call, out of it, on), so a
    // window of consecutive items (decoded trace_chunk rows) serves most requests.
    const from = afterSeq + 1;
    let w = this.window;
    if (!w || from < w.seq[0]! || from > w.seq[w.n - 1]!) {
      if (!w || from === w.seq[w.n - 1]! + 1 || from > w.seq[w.n - 1]!) w = this.loadWindowV1(from);
    }
    if (w?.n && from >= w.seq[0]! && from <= w.seq[w.n - 1]!) {
      const out: Item[] = [];
      const end = fid === ROOT_FID ? null : this.frame(fid)?.endSeq;
      const last = end === undefined || end === null ? Infinity : end;
      let i = lowerBound(w.seq, from);
      for (; i < w.n && w.seq[i]! <= last && out.length < limit; i++) {
        if (w.fid[i] === fid) out.push(this.itemOf(w, i));
      }
      if (out.length) return out;
      if (last <= w.seq[w.n - 1]!) return [];
    }
    const rows = this.db
      .prepare(
        `SELECT seq, fid, kind, line, CASE kind WHEN 'call' THEN state END, state_hash FROM trace_step INDEXED BY trace_step_frame
         WHERE trace = ? AND fid = ? AND seq > ? ORDER BY seq LIMIT ?`,
      )
      .raw()
      .all(this.id, fid, afterSeq, limit) as WindowRow[];
    return rows.map(r => {
      const [seq, , kind, line, callState, hash] = r;
      if (kind === 'call') return toItem({seq, fid: r[1], kind, line, state: callState!});
      return new LazyStep(this, kind, seq, kind === 'line' ? (line ?? 0) : line, hash ?? 0) as Item;
    });
  }

  private loadWindowV1(from: number): Window | null {
    const start = (this.qChunkAt.get(this.id, from) as number | undefined) ?? from;
    const blobs = this.qChunks.all(this.id, start, WINDOW_CHUNKS) as {n: number; data: Buffer}[];
    this.window = blobs.length ? decodeChunks(blobs) : null;
    return this.window;
  }

  // -- states, sources, searches ------------------------------------------------------------

  /** The state text of one step (read only when a comparison or a view needs it). */
  stateOf(seq: number): string {
    if (this.storage === 1)
      return (
        (this.db.prepare('SELECT state FROM trace_step WHERE trace = ? AND seq = ?').pluck().get(this.id, seq) as
          | string
          | undefined) ?? '{}'
      );
    const w = this.chunkAt(seq);
    if (!w) return '';
    const i = lowerBound(w.seq, seq, w.n);
    return w.seq[i] === seq ? stateAt(w, i) : '';
  }

  /** The frame that holds the item at `seq`, and the callee when the item is a call. */
  itemAt(seq: number): {fid: number; callee: number | null} | null {
    if (this.storage === 1) {
      const r = this.db
        .prepare('SELECT fid, kind, state FROM trace_step WHERE trace = ? AND seq = ?')
        .get(this.id, seq) as {fid: number; kind: string; state: string} | undefined;
      if (!r) return null;
      return {fid: r.fid, callee: r.kind === 'call' ? Number(r.state.slice(10, -1)) : null};
    }
    const w = this.chunkAt(seq);
    if (!w) return null;
    const i = lowerBound(w.seq, seq, w.n);
    if (w.seq[i] !== seq) return null;
    return {fid: w.fid[i]!, callee: (w.kind[i]! & 3) === 1 ? w.aux[i]! : null};
  }

  /** Whether the values at a step were recorded (a planned trace records them only where the walk compares). */
  recordedAt(seq: number): boolean {
    if (this.storage === 1) return true;
    const w = this.chunkAt(seq);
    if (!w) return false;
    const i = lowerBound(w.seq, seq, w.n);
    return w.seq[i] === seq && !(w.kind[i]! & UNRECORDED_FLAG);
  }

  /** A frame's recorded states (line changes and its end) up to and including `uptoSeq`. */
  frameStates(fid: number, uptoSeq: number): string[] {
    if (this.storage === 1) {
      return this.db
        .prepare(
          `SELECT state FROM trace_step INDEXED BY trace_step_frame WHERE trace = ? AND fid = ? AND seq <= ? AND kind != 'call' ORDER BY seq`,
        )
        .pluck()
        .all(this.id, fid, uptoSeq) as string[];
    }
    const out: string[] = [];
    let after = this.frame(fid)?.callSeq ?? 0;
    for (;;) {
      const page = this.items(fid, after, 512);
      for (const item of page) {
        if (item.seq > uptoSeq) return out;
        if (item.kind !== 'call' && item.hash !== UNRECORDED) out.push(item.state);
      }
      if (!page.length) return out;
      after = page.at(-1)!.seq;
    }
  }

  /** How many times a line of a file ran in this trace up to `uptoSeq` (for deltatrace eval --hit). */
  lineHits(file: string, line: number, uptoSeq: number): number {
    if (this.storage === 1) {
      return this.db
        .prepare(
          `SELECT count(*) FROM trace_step s JOIN frame f ON f.trace = s.trace AND f.fid = s.fid
           WHERE s.trace = ? AND s.kind = 'line' AND s.line = ? AND f.file = ? AND s.seq <= ?`,
        )
        .pluck()
        .get(this.id, line, file, uptoSeq) as number;
    }
    const fids = new Set(
      this.db.prepare('SELECT fid FROM frame WHERE trace = ? AND file = ?').pluck().all(this.id, file) as number[],
    );
    let hits = 0;
    for (let s = 1; s <= uptoSeq; ) {
      const w = this.chunkAt(s);
      if (!w) break;
      for (let i = lowerBound(w.seq, s, w.n); i < w.n && w.seq[i]! <= uptoSeq; i++) {
        if ((w.kind[i]! & 3) === 0 && w.line[i] === line && fids.has(w.fid[i]!)) hits += 1;
      }
      s = w.last + 1;
    }
    return hits;
  }

  /** Seqs of line steps whose recorded changes name `name`, in order. */
  stepsChanging(name: string): number[] {
    const needle = `${JSON.stringify(name)}:`;
    if (this.storage === 1) {
      return this.db
        .prepare(`SELECT seq FROM trace_step WHERE trace = ? AND kind = 'line' AND instr(state, ?) > 0 ORDER BY seq`)
        .pluck()
        .all(this.id, needle) as number[];
    }
    const out: number[] = [];
    const last = this.maxSeq();
    for (let s = 1; s <= last; ) {
      const w = this.chunkAt(s);
      if (!w) break;
      for (let i = 0; i < w.n; i++) if (w.kind[i] === 0 && stateAt(w, i).includes(needle)) out.push(w.seq[i]!);
      s = w.last + 1;
    }
    return out;
  }

  findFrame(file: string, fn: string): FrameInfo | undefined {
    const fid = this.qFind.get(this.id, file, fn) as number | undefined;
    return fid === undefined ? undefined : this.frame(fid);
  }

  sourceLines(file: string): string[] | null {
    if (!this.sourceCache.has(file)) {
      const text = this.qSource.get(this.id, file) as string | null | undefined;
      this.sourceCache.set(file, text == null ? null : text.split('\n'));
    }
    return this.sourceCache.get(file) ?? null;
  }

  sourceLine(file: string, line: number): string | undefined {
    return this.sourceLines(file)?.[line - 1];
  }
}

function lowerBoundBy(kids: Child[], seq: number): number {
  let lo = 0;
  let hi = kids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (kids[mid]!.callSeq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Every item of a storage-2 trace in seq order: [fid, kind (0 line, 1 call, 2 return, 3 exception), line]. */
function* controlFlow(db: Db, traceId: number): Generator<[number, number, number]> {
  const q = db
    .prepare('SELECT data FROM trace_chunk WHERE trace = ? AND first_seq > ? ORDER BY first_seq LIMIT 16')
    .pluck();
  let after = -1;
  for (;;) {
    const blobs = q.all(traceId, after) as Buffer[];
    if (!blobs.length) return;
    for (const data of blobs) {
      const w = decodeChunk(data, null);
      for (let i = 0; i < w.n; i++) yield [w.fid[i]!, w.kind[i]! & 3, w.line[i]!];
      after = w.seq[0]!;
    }
  }
}

/**
 * Whether two runs of one side took the same control flow: the same frames making the same
 * calls and running the same lines, in the same order (values are not compared).
 */
export function sameControlFlow(db: Db, a: number, b: number, o: {prefix?: boolean} = {}): boolean {
  const count = db.prepare('SELECT n_events, n_frames, storage FROM trace WHERE id = ?');
  const ra = count.get(a) as {n_events: number; n_frames: number; storage: number} | undefined;
  const rb = count.get(b) as {n_events: number; n_frames: number; storage: number} | undefined;
  if (!ra || !rb || ra.storage !== 2 || rb.storage !== 2) return false;
  if (!o.prefix && (ra.n_events !== rb.n_events || ra.n_frames !== rb.n_frames)) return false;
  const ia = controlFlow(db, a);
  const ib = controlFlow(db, b);
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    // runs cut short by a limit (prefix): the same as far as both go
    if (x.done || y.done) return o.prefix ? true : Boolean(x.done && y.done);
    if (x.value[0] !== y.value[0] || x.value[1] !== y.value[1] || x.value[2] !== y.value[2]) return false;
  }
}
