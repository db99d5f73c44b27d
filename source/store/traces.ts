import {ROOT_FID, type FrameInfo, type Item, type Outcome, type TraceSource, type TraceStatus} from '../core/trace/model.js';
import {testOutcome, toItem, type FrameRow, type OutcomeRecord, type StepRow} from '../core/trace/records.js';
import type {DeltaResult} from '../core/trace/delta.js';
import type {Changes} from '../core/trace/line-map.js';
import type {Db} from './db.js';
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
          `INSERT INTO trace (version, test, status, side, run, label, source_format, created_at)
           VALUES (?, ?, 'ingesting', ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`,
        )
        .run(version, test, t.side, t.run, t.label, t.format ?? 'deltatrace').lastInsertRowid,
    );
  })();
}

/** Batched writers for one trace's rows; `flush` commits what is pending in one transaction. */
export function traceWriter(db: Db, traceId: number, batch = 5000) {
  const insFrame = db.prepare(
    `INSERT INTO frame (trace, fid, parent_fid, call_index, function, file, def_line, outcome, call_seq, end_seq, call_line, resume, args)
     VALUES (?, ?, ?, NULL, ?, ?, ?, NULL, ?, NULL, ?, ?, ?)`,
  );
  const endFrame = db.prepare(`UPDATE frame SET outcome = ?, end_seq = ? WHERE trace = ? AND fid = ?`);
  const insStep = db.prepare(`INSERT INTO trace_step (trace, seq, fid, kind, line, state) VALUES (?, ?, ?, ?, ?, ?)`);
  const insSource = db.prepare(`INSERT OR REPLACE INTO trace_source (trace, file, text, truncated) VALUES (?, ?, ?, ?)`);
  let pending: (() => void)[] = [];
  const flushTx = db.transaction((ops: (() => void)[]) => {
    for (const op of ops) op();
  });
  const push = (op: () => void) => {
    pending.push(op);
    if (pending.length >= batch) flush();
  };
  const flush = () => {
    if (pending.length) flushTx(pending);
    pending = [];
  };
  return {
    frame: (f: FrameRow) =>
      push(() => insFrame.run(traceId, f.fid, f.parent, f.fn, f.file, f.defLine, f.callSeq, f.callLine, f.resume ? 1 : 0, f.args)),
    frameEnd: (fid: number, outcome: Outcome, endSeq: number) => push(() => endFrame.run(JSON.stringify(outcome), endSeq, traceId, fid)),
    step: (s: StepRow) => push(() => insStep.run(traceId, s.seq, s.fid, s.kind, s.line, s.state)),
    source: (file: string, text: string | null, truncated: boolean) => push(() => insSource.run(traceId, file, text, truncated ? 1 : 0)),
    flush,
  };
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
}

const TRACE_SELECT = `SELECT t.id, v.instance, te.node_id AS test, t.side, t.run, t.label, t.status, t.n_events AS events, t.n_frames AS frames,
  t.bytes, t.truncated, t.python, t.tracer_version AS tracer, t.outcome, t.header, t.error, t.source_format AS format, t.created_at AS createdAt
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

export function listTraces(db: Db, instance?: string): TraceRow[] {
  const rows = (instance
    ? db.prepare(`${TRACE_SELECT} WHERE v.instance = ? ORDER BY t.id`).all(instance)
    : db.prepare(`${TRACE_SELECT} ORDER BY t.id`).all()) as Record<string, unknown>[];
  return rows.map(toTraceRow);
}

/** Algorithm 1's view of a stored trace: pages of items per frame, frames cached. */
export class StoredTrace implements TraceSource {
  readonly status: TraceStatus;
  readonly outcome: Outcome | null;
  private readonly frameCache = new Map<number, FrameInfo>();
  private readonly sourceCache = new Map<string, string[] | null>();
  private readonly qFrame;
  private readonly qItems;
  private readonly qFind;
  private readonly qSource;

  constructor(
    private readonly db: Db,
    readonly id: number,
  ) {
    const row = db.prepare('SELECT status, outcome FROM trace WHERE id = ?').get(id) as {status: TraceStatus; outcome: string | null} | undefined;
    if (!row) throw new Error(`no trace with id ${id}`);
    this.status = row.status === ('ingesting' as TraceStatus) ? 'crashed' : row.status;
    this.outcome = testOutcome(row.outcome ? (JSON.parse(row.outcome) as OutcomeRecord) : null);
    this.qFrame = db.prepare(
      `SELECT fid, parent_fid, function, file, def_line, call_seq, call_line, resume, args, outcome FROM frame WHERE trace = ? AND fid = ?`,
    ).raw();
    this.qItems = db.prepare(`SELECT seq, fid, kind, line, state FROM trace_step WHERE trace = ? AND fid = ? AND seq > ? ORDER BY seq LIMIT ?`).raw();
    this.qFind = db.prepare(`SELECT fid FROM frame WHERE trace = ? AND file = ? AND function = ? ORDER BY call_seq LIMIT 1`).pluck();
    this.qSource = db.prepare(`SELECT text FROM trace_source WHERE trace = ? AND file = ?`).pluck();
  }

  frame(fid: number): FrameInfo | undefined {
    if (fid === ROOT_FID) return undefined;
    const cached = this.frameCache.get(fid);
    if (cached) return cached;
    const r = this.qFrame.get(this.id, fid) as unknown[] | undefined;
    if (!r) return undefined;
    const info: FrameInfo = {
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
    };
    if (this.frameCache.size > 4096) this.frameCache.clear();
    this.frameCache.set(fid, info);
    return info;
  }

  items(fid: number, afterSeq: number, limit: number): Item[] {
    const rows = this.qItems.all(this.id, fid, afterSeq, limit) as [number, number, StepRow['kind'], number | null, string][];
    return rows.map(([seq, f, kind, line, state]) => toItem({seq, fid: f, kind, line, state}));
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

export interface PairRow {
  id: number;
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
  workspace: Record<string, unknown> | null;
  createdAt: string;
}

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
    .prepare(`SELECT state FROM trace_step WHERE trace = ? AND fid = ? AND seq <= ? AND kind != 'call' ORDER BY seq`)
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
