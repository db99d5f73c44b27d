import {createHash} from 'node:crypto';
import type {Outcome, TraceStatus} from '../core/trace/model.js';
import type {FrameRow, OutcomeRecord, StepRow} from '../core/trace/records.js';
import type {DeltaResult} from '../core/trace/delta.js';
import type {Changes} from '../core/trace/line-map.js';
import {writeTx, type Db} from './db.js';
import {ensureInstance} from './instances.js';
import {CHUNK, ChunkBuilder, packText} from './trace-chunks.js';

interface NewTrace {
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
    const existing = db.prepare('SELECT id FROM test WHERE instance = ? AND node_id = ?').pluck().get(instance, test) as
      | number
      | undefined;
    const testId =
      existing ??
      Number(
        db
          .prepare(`INSERT INTO test (instance, kind, node_id, path) VALUES (?, 'example', ?, ?)`)
          .run(instance, test, test.split('::')[0]).lastInsertRowid,
      );
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
      db.prepare(
        'DELETE FROM program_version WHERE id = ? AND NOT EXISTS (SELECT 1 FROM trace WHERE version = ?) AND NOT EXISTS (SELECT 1 FROM test_run WHERE version = ?)',
      ).run(version, version, version);
      deleted += 1;
    }
    for (const id of rows.tests ?? []) {
      db.prepare(
        'DELETE FROM test WHERE id = ? AND NOT EXISTS (SELECT 1 FROM trace WHERE test = ?) AND NOT EXISTS (SELECT 1 FROM test_run WHERE test = ?)',
      ).run(id, id, id);
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
    forgetUnusedSources(db);
    return deleted;
  });
}

/** Creates the trace row (and the version and test rows it hangs from), status 'ingesting'. */
export function createTrace(db: Db, t: NewTrace): number {
  return db
    .transaction(() => {
      ensureInstance(db, t.instance);
      const version = Number(
        db
          .prepare('INSERT INTO program_version (instance, kind, trajectory, patch) VALUES (?, ?, ?, ?)')
          .run(t.instance, t.versionKind, t.trajectory, t.patch).lastInsertRowid,
      );
      const existing = db.prepare(`SELECT id FROM test WHERE instance = ? AND node_id = ?`).get(t.instance, t.test) as
        | {id: number}
        | undefined;
      const test =
        existing?.id ??
        Number(
          db
            .prepare(`INSERT INTO test (instance, kind, node_id, path) VALUES (?, 'example', ?, ?)`)
            .run(t.instance, t.test, t.test.split('::')[0]).lastInsertRowid,
        );
      return Number(
        db
          .prepare(
            `INSERT INTO trace (version, test, status, side, run, label, source_format, sandbox, created_at)
           VALUES (?, ?, 'ingesting', ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`,
          )
          .run(version, test, t.side, t.run, t.label, t.format ?? 'deltatrace', t.sandbox ?? null).lastInsertRowid,
      );
    })
    .immediate();
}

/**
 * Batched writers for one trace's rows (storage 2): frames, and chunks of items with their
 * states compressed; `flush` commits what is pending in one transaction. A frame's row is
 * written once, when it ends (or at `finish` for a frame that never ended).
 */
export function traceWriter(db: Db, traceId: number, batch = 5000) {
  const insFrame = db.prepare(
    `INSERT INTO frame (trace, fid, parent_fid, call_index, function, file, def_line, outcome, call_seq, end_seq, call_line, resume, args)
     VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insText = db.prepare(`INSERT OR IGNORE INTO source_text (hash, text) VALUES (?, ?)`);
  const insSource = db.prepare(
    `INSERT OR REPLACE INTO trace_source (trace, file, text, truncated, hash) VALUES (?, ?, NULL, ?, ?)`,
  );
  const insMissing = db.prepare(
    `INSERT OR REPLACE INTO trace_source (trace, file, text, truncated, hash) VALUES (?, ?, NULL, ?, NULL)`,
  );
  const insChunk = db.prepare(
    `INSERT INTO trace_chunk (trace, first_seq, last_seq, n, data, states) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  db.prepare('UPDATE trace SET storage = 2 WHERE id = ?').run(traceId);
  const chunk = new ChunkBuilder();
  const open = new Map<number, FrameRow>();
  const writeFrame = (f: FrameRow) =>
    push(() =>
      insFrame.run(
        traceId,
        f.fid,
        f.parent,
        f.fn,
        f.file,
        f.defLine,
        f.outcome ? packText(JSON.stringify(f.outcome)) : null,
        f.callSeq,
        f.endSeq,
        f.callLine,
        f.resume ? 1 : 0,
        f.args === '' ? null : packText(f.args),
      ),
    );
  const writeChunk = () => {
    if (!chunk.n) return;
    const packed = chunk.take();
    push(() => insChunk.run(traceId, packed.first, packed.last, packed.n, packed.data, packed.states));
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
    frame: (f: FrameRow) => open.set(f.fid, {...f}),
    frameEnd: (fid: number, outcome: Outcome, endSeq: number) => {
      const f = open.get(fid);
      if (!f) return;
      open.delete(fid);
      writeFrame({...f, outcome, endSeq});
    },
    step: (s: StepRow) => {
      chunk.add(s);
      // a chunk of huge values is written early, so memory stays bounded
      if (chunk.n >= CHUNK || chunk.stateBytes >= 8 * 1024 * 1024) writeChunk();
    },
    source: (file: string, text: string | null, truncated: boolean) => {
      if (text === null) {
        push(() => insMissing.run(traceId, file, truncated ? 1 : 0));
        return;
      }
      const hash = createHash('sha256').update(text).digest('hex');
      push(() => {
        insText.run(hash, text);
        insSource.run(traceId, file, truncated ? 1 : 0, hash);
      });
    },
    flush,
    /** writes the frames that never ended, the last partial chunk, and commits everything */
    finish: () => {
      for (const f of open.values()) writeFrame(f);
      open.clear();
      writeChunk();
      flush();
    },
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
  /** a run recorded with a budget of values (--record budget): whether it stayed within it, so
   * that every value is in the trace; null for any other run */
  withinBudget?: boolean | null;
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
  forgetUnusedSources(db);
}

/** Source texts no trace refers to any more. */
function forgetUnusedSources(db: Db): void {
  db.prepare(
    'DELETE FROM source_text WHERE NOT EXISTS (SELECT 1 FROM trace_source s WHERE s.hash = source_text.hash)',
  ).run();
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

export {sameControlFlow, StoredTrace} from './stored-trace.js';

// ---- pairs and deltas -------------------------------------------------------------

interface NewPair {
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
export type PairRow = Omit<NewPair, 'workspace'> & {
  id: number;
  workspace: Record<string, unknown> | null;
  createdAt: string;
};

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
  const r = db
    .prepare(`${PAIR_SELECT} WHERE buggy_trace = ? AND patched_trace = ? ORDER BY id DESC LIMIT 1`)
    .get(buggy, patched) as Record<string, unknown> | undefined;
  return r ? toPair(r) : null;
}

export function listPairs(db: Db, instance?: string): PairRow[] {
  const rows = (
    instance
      ? db.prepare(`${PAIR_SELECT} WHERE instance = ? ORDER BY id`).all(instance)
      : db.prepare(`${PAIR_SELECT} ORDER BY id`).all()
  ) as Record<string, unknown>[];
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
      .run(
        buggy,
        patched,
        pair,
        status,
        kind,
        fn,
        file,
        line,
        timing,
        seqB,
        seqP,
        JSON.stringify(options),
        JSON.stringify(detail),
      ).lastInsertRowid,
  );
}

/**
 * The newest pair traced from this change: the same instance, test, diff and seed, whose latest
 * delta was found or found to be none (an incomplete one is traced again). One query.
 */
export function tracedPairFor(db: Db, o: {instance: string; test: string; patch: string; seed: number}): number | null {
  const id = db
    .prepare(
      `SELECT p.id FROM trace_pair p
       WHERE p.instance = ? AND p.test = ? AND p.patch = ? AND coalesce(json_extract(p.workspace, '$.seed'), 0) = ?
         AND (SELECT d.status FROM delta d WHERE d.pair = p.id ORDER BY d.id DESC LIMIT 1) IN ('found', 'none')
       ORDER BY p.id DESC LIMIT 1`,
    )
    .pluck()
    .get(o.instance, o.test, o.patch, o.seed) as number | undefined;
  return id ?? null;
}

export function latestDelta(db: Db, pair: number): (DeltaResult & {id: number}) | null {
  const r = db.prepare(`SELECT * FROM delta WHERE pair = ? ORDER BY id DESC LIMIT 1`).get(pair) as
    | Record<string, unknown>
    | undefined;
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

export function setTraceFormat(db: Db, traceId: number, format: string): void {
  db.prepare('UPDATE trace SET source_format = ? WHERE id = ?').run(format, traceId);
}

/** The latest pair stored for an instance, patch label and test, with its latest delta's summary
 * (with `complete`, only one whose delta is found or ∅: an incomplete one is then traced again). */
export function storedPairOf(
  db: Db,
  instance: string,
  label: string,
  test: string,
  o: {complete: boolean},
): {pair: number; delta: Pick<DeltaResult, 'status' | 'kind' | 'function' | 'file' | 'line'>} | null {
  const row = db
    .prepare(
      `SELECT p.id, d.status, d.kind, d.function, d.file, d.line FROM trace_pair p JOIN delta d ON d.pair = p.id
       WHERE p.instance = ? AND p.label = ? AND p.test = ? ${o.complete ? "AND d.status != 'incomplete'" : ''}
       ORDER BY p.id DESC, d.id DESC LIMIT 1`,
    )
    .get(instance, label, test) as
    | ({id: number} & Pick<DeltaResult, 'status' | 'kind' | 'function' | 'file' | 'line'>)
    | undefined;
  if (!row) return null;
  const {id, ...delta} = row;
  return {pair: id, delta};
}

/** The pair imported from a pod's results folder, if it was. */
export function pairFromFolder(db: Db, instance: string, dir: string): number | null {
  const row = db
    .prepare(`SELECT id FROM trace_pair WHERE instance = ? AND json_extract(workspace, '$.dir') = ?`)
    .get(instance, dir) as {id: number} | undefined;
  return row?.id ?? null;
}
