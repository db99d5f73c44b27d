import {ROOT_FID, type FrameInfo, type Item, type Outcome, type TraceSource, type TraceStatus} from '../core/trace/model.js';
import {testOutcome, toItem, type FrameRow, type OutcomeRecord, type StepRow} from '../core/trace/records.js';
import type {DeltaResult} from '../core/trace/delta.js';
import type {Changes} from '../core/trace/line-map.js';
import {writeTx, type Db} from './db.js';
import {ensureInstance} from './instances.js';

export interface NewTrace {
  instance: string;
  versionKind: 'buggy' | 'gold' | 'agent';
  patch: string | null;
  trajectory: number | null;
  test: string;
  side: 'buggy' | 'patched';
  run: number;
  label: string | null;
  format?: string;
  /** how the run was confined (services/sandbox.ts), null for imported files */
  sandbox?: string | null;
}

/** The instance and test rows a run hangs its traces from, and which of them it had to create
 * (so a run that does not finish can take them away again: discardTraces). */
export function ensureTraceTarget(db: Db, instance: string, test: string): {instances: string[]; tests: number[]} {
  return writeTx(db, () => {
    const hadInstance = db.prepare('SELECT 1 FROM instance WHERE id = ?').get(instance) !== undefined;
    ensureInstance(db, instance);
    const existing = db.prepare('SELECT id FROM test WHERE instance = ? AND node_id = ?').pluck().get(instance, test) as number | undefined;
    const testId = existing ?? Number(db.prepare(`INSERT INTO test (instance, kind, node_id, path) VALUES (?, 'example', ?, ?)`).run(instance, test, test.split('::')[0]).lastInsertRowid);
    return {instances: hadInstance ? [] : [instance], tests: existing === undefined ? [testId] : []};
  });
}

/**
 * Takes away what an unfinished run wrote: its traces (frames, steps, chunks, sources, pairs
 * and deltas go with them), their program versions, and the test and instance rows the run
 * created when nothing else uses them. Returns how many traces were deleted.
 */
export function discardTraces(db: Db, rows: {traces: number[]; tests?: number[]; instances?: string[]}): number {
  return writeTx(db, () => {
    let deleted = 0;
    for (const id of rows.traces) {
      const version = db.prepare('SELECT version FROM trace WHERE id = ?').pluck().get(id) as number | undefined;
      if (version === undefined) continue;
      db.prepare('DELETE FROM trace WHERE id = ?').run(id);
      db.prepare('DELETE FROM program_version WHERE id = ? AND NOT EXISTS (SELECT 1 FROM trace WHERE version = ?) AND NOT EXISTS (SELECT 1 FROM test_run WHERE version = ?)').run(version, version, version);
      deleted += 1;
    }
    for (const id of rows.tests ?? []) {
      db.prepare('DELETE FROM test WHERE id = ? AND NOT EXISTS (SELECT 1 FROM trace WHERE test = ?) AND NOT EXISTS (SELECT 1 FROM test_run WHERE test = ?)').run(id, id, id);
    }
    for (const id of rows.instances ?? []) {
      try {
        db.prepare('SAVEPOINT discard_instance').run();
        db.prepare('DELETE FROM instance WHERE id = ?').run(id);
        db.prepare('RELEASE discard_instance').run();
      } catch {
        // still used by something else (a foreign key says so): it stays
        db.prepare('ROLLBACK TO discard_instance').run();
        db.prepare('RELEASE discard_instance').run();
      }
    }
    return deleted;
  });
}

/** Creates the trace row (and the version and test rows it hangs from), status 'ingesting'. */
export function createTrace(db: Db, t: NewTrace): number {
  return db.transaction(() => {
    ensureInstance(db, t.instance);
    const version = Number(
      db.prepare('INSERT INTO program_version (instance, kind, trajectory, patch) VALUES (?, ?, ?, ?)').run(t.instance, t.versionKind, t.trajectory, t.patch)
        .lastInsertRowid,
    );
    const existing = db.prepare(`SELECT id FROM test WHERE instance = ? AND node_id = ?`).get(t.instance, t.test) as {id: number} | undefined;
    const test =
      existing?.id ??
      Number(db.prepare(`INSERT INTO test (instance, kind, node_id, path) VALUES (?, 'example', ?, ?)`).run(t.instance, t.test, t.test.split('::')[0]).lastInsertRowid);
    return Number(
      db
        .prepare(
          `INSERT INTO trace (version, test, status, side, run, label, source_format, sandbox, created_at)
           VALUES (?, ?, 'ingesting', ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`,
        )
        .run(version, test, t.side, t.run, t.label, t.format ?? 'deltatrace', t.sandbox ?? null).lastInsertRowid,
    );
  }).immediate();
}

/** Batched writers for one trace's rows; `flush` commits what is pending in one transaction. */
export function traceWriter(db: Db, traceId: number, batch = 5000) {
  const insFrame = db.prepare(
    `INSERT INTO frame (trace, fid, parent_fid, call_index, function, file, def_line, outcome, call_seq, end_seq, call_line, resume, args)
     VALUES (?, ?, ?, NULL, ?, ?, ?, NULL, ?, NULL, ?, ?, ?)`,
  );
  const endFrame = db.prepare(`UPDATE frame SET outcome = ?, end_seq = ? WHERE trace = ? AND fid = ?`);
  const insStep = db.prepare(`INSERT INTO trace_step (trace, seq, fid, kind, line, state, state_hash) VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const insSource = db.prepare(`INSERT OR REPLACE INTO trace_source (trace, file, text, truncated) VALUES (?, ?, ?, ?)`);
  const insChunk = db.prepare(`INSERT INTO trace_chunk (trace, first_seq, last_seq, n, data) VALUES (?, ?, ?, ?, ?)`);
  const chunk = new ChunkBuilder();
  const writeChunk = () => {
    if (!chunk.n) return;
    const packed = chunk.take();
    push(() => insChunk.run(traceId, packed.first, packed.last, packed.n, packed.data));
  };
  let pending: (() => void)[] = [];
  const flushTx = db.transaction((ops: (() => void)[]) => {
    for (const op of ops) op();
  });
  const push = (op: () => void) => {
    pending.push(op);
    if (pending.length >= batch) flush();
  };
  const flush = () => {
    if (pending.length) flushTx.immediate(pending);
    pending = [];
  };
  return {
    frame: (f: FrameRow) =>
      push(() => insFrame.run(traceId, f.fid, f.parent, f.fn, f.file, f.defLine, f.callSeq, f.callLine, f.resume ? 1 : 0, f.args)),
    frameEnd: (fid: number, outcome: Outcome, endSeq: number) => push(() => endFrame.run(JSON.stringify(outcome), endSeq, traceId, fid)),
    step: (s: StepRow) => {
      push(() => insStep.run(traceId, s.seq, s.fid, s.kind, s.line, s.state, s.hash ?? null));
      chunk.add(s);
      if (chunk.n >= CHUNK) writeChunk();
    },
    source: (file: string, text: string | null, truncated: boolean) => push(() => insSource.run(traceId, file, text, truncated ? 1 : 0)),
    flush,
    /** writes the last partial chunk and commits everything */
    finish: () => {
      writeChunk();
      flush();
    },
  };
}

const CHUNK = 1024;
const KIND_CODE = {line: 0, call: 1, return: 2, exception: 3} as const;
const KIND_NAME = ['line', 'call', 'return', 'exception'] as const;

/** Packs consecutive items column-wise (see trace_chunk in db/003_traces.sql). */
class ChunkBuilder {
  private seq: number[] = [];
  private fid: number[] = [];
  private line: number[] = [];
  private aux: number[] = [];
  private kind: number[] = [];

  get n(): number {
    return this.seq.length;
  }

  add(s: StepRow): void {
    this.seq.push(s.seq);
    this.fid.push(s.fid);
    this.line.push(s.line ?? 0);
    this.kind.push(KIND_CODE[s.kind]);
    this.aux.push(s.kind === 'call' ? Number(s.state.slice(10, -1)) : (s.hash ?? 0));
  }

  take(): {first: number; last: number; n: number; data: Buffer} {
    const n = this.n;
    const data = Buffer.alloc(n * 21);
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    for (let i = 0; i < n; i++) {
      view.setFloat64(i * 8, this.aux[i]!, true);
      view.setInt32(n * 8 + i * 4, this.seq[i]!, true);
      view.setInt32(n * 12 + i * 4, this.fid[i]!, true);
      view.setInt32(n * 16 + i * 4, this.line[i]!, true);
      view.setUint8(n * 20 + i, this.kind[i]!);
    }
    const out = {first: this.seq[0]!, last: this.seq[n - 1]!, n, data};
    this.seq = [];
    this.fid = [];
    this.line = [];
    this.aux = [];
    this.kind = [];
    return out;
  }
}

/** Decoded chunks: columns over a run of consecutive items. */
interface Window {
  n: number;
  seq: Int32Array;
  fid: Int32Array;
  line: Int32Array;
  aux: Float64Array;
  kind: Uint8Array;
}

function decodeChunks(blobs: {n: number; data: Buffer}[]): Window {
  const n = blobs.reduce((sum, b) => sum + b.n, 0);
  const w: Window = {n, seq: new Int32Array(n), fid: new Int32Array(n), line: new Int32Array(n), aux: new Float64Array(n), kind: new Uint8Array(n)};
  let at = 0;
  for (const {n: m, data} of blobs) {
    // copy into an aligned buffer, then view each column
    const buf = new ArrayBuffer(data.byteLength);
    new Uint8Array(buf).set(data);
    w.aux.set(new Float64Array(buf, 0, m), at);
    w.seq.set(new Int32Array(buf, m * 8, m), at);
    w.fid.set(new Int32Array(buf, m * 12, m), at);
    w.line.set(new Int32Array(buf, m * 16, m), at);
    w.kind.set(new Uint8Array(buf, m * 20, m), at);
    at += m;
  }
  return w;
}

export interface TraceSummary {
  status: TraceStatus;
  header: unknown;
  outcome: OutcomeRecord | null;
  events: number;
  frames: number;
  bytes: number;
  error: string | null;
  truncated: boolean;
}

export function finishTrace(db: Db, traceId: number, s: TraceSummary): void {
  const header = s.header as {tracer?: string; python?: string} | null;
  db.prepare(
    `UPDATE trace SET status = ?, header = ?, outcome = ?, n_events = ?, n_frames = ?, bytes = ?, error = ?, truncated = ?,
                      tracer_version = ?, python = ? WHERE id = ?`,
  ).run(
    s.status,
    s.header ? JSON.stringify(s.header) : null,
    s.outcome ? JSON.stringify(s.outcome) : null,
    s.events,
    s.frames,
    s.bytes,
    s.error,
    s.truncated ? 1 : 0,
    header?.tracer ?? null,
    header?.python ?? null,
    traceId,
  );
}

export function deleteTrace(db: Db, traceId: number): void {
  db.prepare('DELETE FROM trace WHERE id = ?').run(traceId);
}

export interface TraceRow {
  id: number;
  instance: string;
  test: string;
  side: 'buggy' | 'patched' | null;
  run: number;
  label: string | null;
  status: TraceStatus;
  events: number;
  frames: number;
  bytes: number;
  truncated: boolean;
  python: string | null;
  tracer: string | null;
  outcome: OutcomeRecord | null;
  header: Record<string, unknown> | null;
  error: string | null;
  format: string;
  createdAt: string | null;
  /** how the run was confined: "bwrap 0.8.0", "none (--no-sandbox)", …; null for imported files */
  sandbox: string | null;
}

const TRACE_SELECT = `SELECT t.id, v.instance, te.node_id AS test, t.side, t.run, t.label, t.status, t.n_events AS events, t.n_frames AS frames,
  t.bytes, t.truncated, t.python, t.tracer_version AS tracer, t.outcome, t.header, t.error, t.source_format AS format, t.created_at AS createdAt,
  t.sandbox
  FROM trace t JOIN program_version v ON v.id = t.version JOIN test te ON te.id = t.test`;

function toTraceRow(r: Record<string, unknown>): TraceRow {
  return {
    ...(r as unknown as TraceRow),
    truncated: r.truncated === 1,
    outcome: r.outcome ? (JSON.parse(r.outcome as string) as OutcomeRecord) : null,
    header: r.header ? (JSON.parse(r.header as string) as Record<string, unknown>) : null,
  };
}

export function getTrace(db: Db, id: number): TraceRow | null {
  const r = db.prepare(`${TRACE_SELECT} WHERE t.id = ?`).get(id) as Record<string, unknown> | undefined;
  return r ? toTraceRow(r) : null;
}

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
    return this.source.stateOf(this.seq);
  }
}

type WindowRow = [number, number, StepRow['kind'], number | null, string | null, number | null];
const WINDOW_CHUNKS = 8;

function lowerBound(a: Int32Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
const FRAME_BATCH = 1024;

/** Algorithm 1's view of a stored trace: pages of items per frame, frames cached. */
export class StoredTrace implements TraceSource {
  readonly status: TraceStatus;
  readonly outcome: Outcome | null;
  private readonly frameCache = new Map<number, FrameInfo & {endSeq: number | null}>();
  private readonly sourceCache = new Map<string, string[] | null>();
  private readonly qItems;
  private readonly qFind;
  private readonly qSource;
  private readonly qChunkAt;
  private readonly qChunks;
  private readonly qState;
  private readonly qFrames;
  private window: Window | null = null;

  constructor(
    private readonly db: Db,
    readonly id: number,
  ) {
    const row = db.prepare('SELECT status, outcome FROM trace WHERE id = ?').get(id) as {status: TraceStatus; outcome: string | null} | undefined;
    if (!row) throw new Error(`no trace with id ${id}`);
    this.status = row.status === ('ingesting' as TraceStatus) ? 'crashed' : row.status;
    this.outcome = testOutcome(row.outcome ? (JSON.parse(row.outcome) as OutcomeRecord) : null);
    this.qItems = db
      .prepare(
        `SELECT seq, fid, kind, line, CASE kind WHEN 'call' THEN state END, state_hash FROM trace_step INDEXED BY trace_step_frame
         WHERE trace = ? AND fid = ? AND seq > ? ORDER BY seq LIMIT ?`,
      )
      .raw();
    // the state text is read only for calls (their callee); other states are compared by
    // hash and read lazily when they differ
    this.qChunkAt = db.prepare(`SELECT first_seq FROM trace_chunk WHERE trace = ? AND first_seq <= ? ORDER BY first_seq DESC LIMIT 1`).pluck();
    this.qChunks = db.prepare(`SELECT n, data FROM trace_chunk WHERE trace = ? AND first_seq >= ? ORDER BY first_seq LIMIT ?`);
    this.qState = db.prepare(`SELECT state FROM trace_step WHERE trace = ? AND seq = ?`).pluck();
    this.qFrames = db
      .prepare(`SELECT fid, parent_fid, function, file, def_line, call_seq, call_line, resume, args, outcome, end_seq FROM frame WHERE trace = ? AND fid >= ? ORDER BY fid LIMIT ?`)
      .raw();
    this.qFind = db.prepare(`SELECT fid FROM frame WHERE trace = ? AND file = ? AND function = ? ORDER BY call_seq LIMIT 1`).pluck();
    this.qSource = db.prepare(`SELECT text FROM trace_source WHERE trace = ? AND file = ?`).pluck();
  }

  frame(fid: number): (FrameInfo & {endSeq: number | null}) | undefined {
    if (fid === ROOT_FID) return undefined;
    const cached = this.frameCache.get(fid);
    if (cached) return cached;
    // frames are numbered in call order, so the next ones are usually needed next
    if (this.frameCache.size > 8 * FRAME_BATCH) this.frameCache.clear();
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
        args: (r[8] as string | null) ?? '{}',
        outcome: r[9] ? (JSON.parse(r[9] as string) as Outcome) : null,
        endSeq: r[10] as number | null,
      });
    }
    return this.frameCache.get(fid);
  }

  items(fid: number, afterSeq: number, limit: number): Item[] {
    // The walk reads items in seq order almost always (into a call, out of it, on), so a
    // window of consecutive items (decoded trace_chunk rows) serves most requests.
    const from = afterSeq + 1;
    let w = this.window;
    if (!w || from < w.seq[0]! || from > w.seq[w.n - 1]!) {
      if (!w || from === w.seq[w.n - 1]! + 1 || from > w.seq[w.n - 1]!) w = this.loadWindow(from);
    }
    if (w && w.n && from >= w.seq[0]! && from <= w.seq[w.n - 1]!) {
      const out: Item[] = [];
      const end = fid === ROOT_FID ? null : this.frame(fid)?.endSeq;
      const last = end === undefined || end === null ? Infinity : end;
      let i = lowerBound(w.seq, from);
      for (; i < w.n && w.seq[i]! <= last && out.length < limit; i++) {
        if (w.fid[i] === fid) out.push(this.windowItem(w, i));
      }
      if (out.length) return out;
      if (last <= w.seq[w.n - 1]!) return [];
    }
    return (this.qItems.all(this.id, fid, afterSeq, limit) as WindowRow[]).map(r => this.item(r));
  }

  private loadWindow(from: number): Window | null {
    const start = (this.qChunkAt.get(this.id, from) as number | undefined) ?? from;
    const blobs = this.qChunks.all(this.id, start, WINDOW_CHUNKS) as {n: number; data: Buffer}[];
    this.window = blobs.length ? decodeChunks(blobs) : null;
    return this.window;
  }

  private windowItem(w: Window, i: number): Item {
    const kind = KIND_NAME[w.kind[i]!]!;
    const line = w.line[i] === 0 ? null : w.line[i]!;
    if (kind === 'call') return {kind, seq: w.seq[i]!, line, callee: w.aux[i]!};
    return new LazyStep(this, kind, w.seq[i]!, kind === 'line' ? (line ?? 0) : line, w.aux[i]!) as Item;
  }

  private item(r: WindowRow): Item {
    const [seq, , kind, line, callState, hash] = r;
    if (kind === 'call') return toItem({seq, fid: r[1], kind, line, state: callState!});
    return new LazyStep(this, kind, seq, kind === 'line' ? (line ?? 0) : line, hash ?? 0) as Item;
  }

  /** The state text of one step (read only when a comparison or a view needs it). */
  stateOf(seq: number): string {
    return (this.qState.get(this.id, seq) as string | undefined) ?? '{}';
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

// ---- pairs and deltas -------------------------------------------------------------

export interface NewPair {
  instance: string;
  label: string | null;
  test: string;
  buggyTrace: number | null;
  patchedTrace: number | null;
  buggyRerun: number | null;
  patchedRerun: number | null;
  trajectory: number | null;
  changes: Changes | null;
  patch: string | null;
  workspace: unknown;
}

export function insertPair(db: Db, p: NewPair): number {
  ensureInstance(db, p.instance);
  return Number(
    db
      .prepare(
        `INSERT INTO trace_pair (instance, label, test, buggy_trace, patched_trace, buggy_rerun, patched_rerun, trajectory, changes, patch, workspace)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        p.instance,
        p.label,
        p.test,
        p.buggyTrace,
        p.patchedTrace,
        p.buggyRerun,
        p.patchedRerun,
        p.trajectory,
        p.changes ? JSON.stringify(p.changes) : null,
        p.patch,
        JSON.stringify(p.workspace ?? null),
      ).lastInsertRowid,
  );
}

/** A stored pair: what was inserted, with its id, the workspace as an object, and when. */
export type PairRow = Omit<NewPair, 'workspace'> & {id: number; workspace: Record<string, unknown> | null; createdAt: string};

const PAIR_SELECT = `SELECT id, instance, label, test, buggy_trace AS buggyTrace, patched_trace AS patchedTrace, buggy_rerun AS buggyRerun,
  patched_rerun AS patchedRerun, trajectory, changes, patch, workspace, created_at AS createdAt FROM trace_pair`;

function toPair(r: Record<string, unknown>): PairRow {
  return {
    ...(r as unknown as PairRow),
    changes: r.changes ? (JSON.parse(r.changes as string) as Changes) : null,
    workspace: r.workspace ? (JSON.parse(r.workspace as string) as Record<string, unknown>) : null,
  };
}

export function getPair(db: Db, id: number): PairRow | null {
  const r = db.prepare(`${PAIR_SELECT} WHERE id = ?`).get(id) as Record<string, unknown> | undefined;
  return r ? toPair(r) : null;
}

export function findPairByTraces(db: Db, buggy: number, patched: number): PairRow | null {
  const r = db.prepare(`${PAIR_SELECT} WHERE buggy_trace = ? AND patched_trace = ? ORDER BY id DESC LIMIT 1`).get(buggy, patched) as
    | Record<string, unknown>
    | undefined;
  return r ? toPair(r) : null;
}

export function listPairs(db: Db, instance?: string): PairRow[] {
  const rows = (instance ? db.prepare(`${PAIR_SELECT} WHERE instance = ? ORDER BY id`).all(instance) : db.prepare(`${PAIR_SELECT} ORDER BY id`).all()) as Record<
    string,
    unknown
  >[];
  return rows.map(toPair);
}

export function saveDelta(db: Db, buggy: number, patched: number, pair: number | null, d: DeltaResult): number {
  const {status, kind, function: fn, file, line, timing, seqB, seqP, options, ...detail} = d;
  return Number(
    db
      .prepare(
        `INSERT INTO delta (buggy_trace, patched_trace, pair, status, kind, function, file, line, timing, seq_b, seq_p, options, detail, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`,
      )
      .run(buggy, patched, pair, status, kind, fn, file, line, timing, seqB, seqP, JSON.stringify(options), JSON.stringify(detail)).lastInsertRowid,
  );
}

export function latestDelta(db: Db, pair: number): (DeltaResult & {id: number}) | null {
  const r = db.prepare(`SELECT * FROM delta WHERE pair = ? ORDER BY id DESC LIMIT 1`).get(pair) as Record<string, unknown> | undefined;
  if (!r) return null;
  return {
    ...(JSON.parse(r.detail as string) as object),
    id: r.id as number,
    status: r.status,
    kind: r.kind,
    function: r.function,
    file: r.file,
    line: r.line,
    timing: r.timing,
    seqB: r.seq_b,
    seqP: r.seq_p,
    options: JSON.parse(r.options as string),
  } as DeltaResult & {id: number};
}

/** A frame's recorded states (line changes and its end) up to and including `uptoSeq`. */
export function frameStates(db: Db, traceId: number, fid: number, uptoSeq: number): string[] {
  return db
    .prepare(`SELECT state FROM trace_step INDEXED BY trace_step_frame WHERE trace = ? AND fid = ? AND seq <= ? AND kind != 'call' ORDER BY seq`)
    .pluck()
    .all(traceId, fid, uptoSeq) as string[];
}

/** How many times a line of a file ran on one side up to `uptoSeq` (for deltatrace eval --hit). */
export function lineHits(db: Db, traceId: number, file: string, line: number, uptoSeq: number): number {
  return db
    .prepare(
      `SELECT count(*) FROM trace_step s JOIN frame f ON f.trace = s.trace AND f.fid = s.fid
       WHERE s.trace = ? AND s.kind = 'line' AND s.line = ? AND f.file = ? AND s.seq <= ?`,
    )
    .pluck()
    .get(traceId, line, file, uptoSeq) as number;
}

export function setTraceFormat(db: Db, traceId: number, format: string): void {
  db.prepare('UPDATE trace SET source_format = ? WHERE id = ?').run(format, traceId);
}
