/**
 * Trace files into the store, streamed: one line at a time, rows written in batched
 * transactions, so a trace of millions of events never sits in memory.
 */
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs';
import {notRun, RecordError, TraceAssembler} from '../core/trace/records.js';
import {ConvertError, isSweBenchTracerEvent, SweBenchTracerConverter} from '../core/trace/swe-bench-tracer.js';
import type {TraceStatus} from '../core/trace/model.js';
import {FormatError} from '../core/trajectory/model.js';
import type {Db} from '../store/db.js';
import {extractDelta, type DeltaOption, type DeltaResult} from '../core/trace/delta.js';
import {LineMap, type Changes} from '../core/trace/line-map.js';
import {
  createTrace,
  deleteTrace,
  finishTrace,
  insertPair,
  pairFromFolder,
  saveDelta,
  setTraceFormat,
  StoredTrace,
  traceWriter,
  type TraceSummary,
} from '../store/traces.js';
import {join, resolve} from 'node:path';
import {rerunNondeterminism} from './delta.js';
import {LineSplitter, readLines, type RawLine} from './text-file.js';

const MAX_LINE = 512 * 1024 * 1024;

interface IngestContext {
  /** the tracer process was killed by the wall-clock timeout */
  timedOut?: boolean;
  /** the tracer's stderr tail, kept when the trace is not complete */
  stderr?: string;
  exitCode?: number | null;
  onProgress?: (events: number) => void;
}

/**
 * One trace arriving line by line (from a file, or streamed from the tracer's pipe while it
 * runs, so a trace never sits whole on disk or in memory): records are assembled into frames
 * and steps and written in batched transactions. A swe-bench-tracer-py trace is recognised by
 * its first event and converted on the fly.
 */
class TraceIngest {
  private readonly writer;
  private readonly asm;
  private converter: SweBenchTracerConverter | null | undefined;
  private badLine: {line: number; message: string} | null = null;
  /** bytes received */
  bytes = 0;
  lines = 0;

  constructor(
    private readonly db: Db,
    readonly traceId: number,
    private readonly where: string,
    private readonly onProgress?: (events: number) => void,
  ) {
    this.writer = traceWriter(db, traceId);
    this.asm = new TraceAssembler(this.writer);
  }

  /** One line of the trace; throws FormatError when the trace is corrupt (not merely cut off). */
  line(raw: RawLine): void {
    this.bytes += raw.bytes.length + 1;
    this.lines += 1;
    if (this.badLine) {
      // a bad line followed by more lines is corruption, not a cut-off write
      throw new FormatError(`invalid trace record: ${this.badLine.message}`, {
        path: this.where,
        line: this.badLine.line,
      });
    }
    if (!raw.text.trim()) return;
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(raw.text) as Record<string, unknown>;
    } catch (e) {
      this.badLine = {line: raw.line, message: (e as Error).message};
      return;
    }
    try {
      if (this.converter === undefined) {
        this.converter = isSweBenchTracerEvent(rec) ? new SweBenchTracerConverter() : null;
        if (this.converter)
          this.asm.add({t: 'header', format: 1, tracer: 'swe-bench-tracer-py (converted by deltalens)', python: null});
      }
      for (const r of this.converter ? this.converter.convert(rec) : [rec]) this.asm.add(r);
    } catch (e) {
      if (e instanceof RecordError || e instanceof ConvertError)
        throw new FormatError(e.message, {path: this.where, line: raw.line});
      throw e;
    }
    if (this.onProgress && this.asm.events % 50_000 === 0) this.onProgress(this.asm.events);
  }

  /** Closes the trace: its status from what arrived and how the run ended; stored. */
  finish(ctx: IngestContext = {}): TraceSummary & {format: string} {
    let status: TraceStatus;
    let error: string | null = null;
    const tail = ctx.stderr ? `: ${ctx.stderr.trim().split('\n').slice(-5).join(' | ')}` : '';
    if (this.lines === 0) {
      status = ctx.timedOut ? 'timeout' : 'crashed';
      error = `no trace written${ctx.exitCode != null ? ` (tracer exit code ${ctx.exitCode})` : ''}${tail}`;
    } else {
      if (this.converter) for (const r of this.converter.finish()) this.asm.add(r);
      status = this.asm.status;
      if (ctx.timedOut && status === 'crashed') status = 'timeout';
      if (this.badLine) error = `the last line was cut off (${this.badLine.message})`;
      if (status === 'error')
        error = `the test did not run: ${(this.asm.outcome && notRun(this.asm.outcome)) ?? 'no outcome'}`;
      if (status === 'crashed' && !error) error = `the trace ends without an end record${tail}`;
      if (status === 'timeout' && !error) error = 'killed by the wall-clock timeout';
    }
    this.writer.finish();
    const summary: TraceSummary = {
      status,
      header: this.asm.header,
      outcome: this.asm.outcome,
      events: this.asm.events,
      frames: this.asm.frames,
      bytes: this.bytes,
      error,
      truncated: this.asm.truncated !== null,
      withinBudget: withinBudget(this.asm.end),
    };
    finishTrace(this.db, this.traceId, summary);
    return {...summary, format: this.converter ? 'swe-bench-tracer' : 'deltatrace'};
  }
}

/** The end record's `budget.within` (a --record budget run), else null. */
function withinBudget(end: Record<string, unknown> | null): boolean | null {
  const budget = end?.['budget'] as {within?: unknown} | undefined;
  return typeof budget?.within === 'boolean' ? budget.within : null;
}

/** A line that is not UTF-8 text or too long: the file (or stream) is not a trace at all. */
function notATrace(e: unknown, where: string): unknown {
  if (!(e instanceof FormatError) || e.where.path) return e;
  return new FormatError(`not a trace: ${e.message} (a trace is UTF-8 JSON lines)`, {
    path: where,
    line: e.where.line,
    column: e.where.column,
  });
}

/** Reads a trace file into the trace `traceId`; a corrupt file leaves nothing behind. */
export function ingestTraceFile(
  db: Db,
  path: string,
  traceId: number,
  ctx: IngestContext = {},
): TraceSummary & {format: string} {
  const ingest = new TraceIngest(db, traceId, path, ctx.onProgress);
  try {
    if (existsSync(path)) for (const raw of readLines(path, MAX_LINE)) ingest.line(raw);
  } catch (e) {
    deleteTrace(db, traceId);
    throw notATrace(e, path);
  }
  return ingest.finish(ctx);
}

/** Reads a trace streamed in chunks (the tracer's pipe); see TraceIngest. */
export class StreamedTrace {
  private readonly splitter = new LineSplitter(MAX_LINE);
  readonly ingest: TraceIngest;
  /** set when the stream turned out corrupt; the caller stops the run and discards the trace */
  failure: Error | null = null;

  constructor(
    db: Db,
    traceId: number,
    private readonly where: string,
  ) {
    this.ingest = new TraceIngest(db, traceId, where);
  }

  chunk(data: Buffer): void {
    if (this.failure) return;
    try {
      for (const raw of this.splitter.push(data)) this.ingest.line(raw);
    } catch (e) {
      this.failure = notATrace(e, `the trace stream of ${this.where}`) as Error;
    }
  }

  finish(ctx: IngestContext): TraceSummary & {format: string} {
    if (!this.failure) {
      try {
        const last = this.splitter.end();
        if (last) this.ingest.line(last);
      } catch (e) {
        this.failure = notATrace(e, `the trace stream of ${this.where}`) as Error;
      }
    }
    if (this.failure) throw this.failure;
    return this.ingest.finish(ctx);
  }
}

interface ImportedPair {
  pair: number;
  buggy: number;
  patched: number;
  delta: DeltaResult & {id: number};
  summaries: (TraceSummary & {format: string})[];
}

/**
 * Two trace files stored as a pair, with their delta. No patch is known: lines map one to
 * one (or by statement text with the match-by-text option). A file that fails to import
 * leaves nothing behind.
 */
export function importTracePair(
  db: Db,
  buggyFile: string,
  patchedFile: string,
  o: {instance: string; label: string | null; test: string; options: DeltaOption[]},
): ImportedPair {
  const ids: number[] = [];
  const summaries: (TraceSummary & {format: string})[] = [];
  try {
    for (const [file, side] of [
      [buggyFile, 'buggy'],
      [patchedFile, 'patched'],
    ] as const) {
      const id = createTrace(db, {
        instance: o.instance,
        versionKind: side === 'buggy' ? 'buggy' : 'gold',
        patch: null,
        trajectory: null,
        test: o.test,
        side,
        run: 1,
        label: o.label,
      });
      ids.push(id);
      const summary = ingestTraceFile(db, resolve(file), id);
      setTraceFormat(db, id, summary.format);
      summaries.push(summary);
    }
  } catch (error) {
    for (const id of ids) deleteTrace(db, id);
    throw error;
  }
  const [b, p] = ids as [number, number];
  const result = extractDelta({
    buggy: new StoredTrace(db, b),
    patched: new StoredTrace(db, p),
    map: new LineMap(null),
    options: o.options,
  });
  const pair = insertPair(db, {
    instance: o.instance,
    label: o.label,
    test: o.test,
    buggyTrace: b,
    patchedTrace: p,
    buggyRerun: null,
    patchedRerun: null,
    trajectory: null,
    changes: null,
    patch: null,
    workspace: {kind: 'imported', files: [resolve(buggyFile), resolve(patchedFile)]},
  });
  const id = saveDelta(db, b, p, pair, result);
  return {pair, buggy: b, patched: p, delta: {...result, id}, summaries};
}

/** What `deltatrace pod` wrote for one instance (see tracer/deltatrace/pod.py). */
interface PodJob {
  instance: string;
  label: string | null;
  test: string;
  changes: Changes | null;
  diff: string | null;
  image?: string;
}

export class PodResultError extends Error {}

/** The folders of pod results under `dir`: itself when it holds a job.json, else its sub-folders that do. */
export function podResultDirs(dir: string): string[] {
  if (existsSync(join(dir, 'job.json'))) return [resolve(dir)];
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new PodResultError(`${dir}: no such folder`);
  return readdirSync(dir)
    .map(name => join(dir, name))
    .filter(sub => existsSync(join(sub, 'job.json')))
    .sort()
    .map(sub => resolve(sub));
}

/**
 * One instance's pod results stored as a pair — its first runs as the traces, the second runs
 * as their re-runs (what varies between two runs of a side is no evidence) — with the delta taken
 * with the patch's line mapping, as a pair traced here. Already imported (the same folder): null.
 */
export function importPodResult(db: Db, dir: string, o: {options: DeltaOption[]}): ImportedPair | null {
  let job: PodJob;
  let result: {error?: string | null; runs?: {side: string; run: number; exit_code: number}[]};
  try {
    job = JSON.parse(readFileSync(join(dir, 'job.json'), 'utf8')) as PodJob;
    result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as typeof result;
  } catch (error) {
    throw new PodResultError(
      `${dir}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'job.json or result.json is missing (the pod did not finish)' : (error as Error).message}`,
    );
  }
  for (const field of ['instance', 'test'] as const)
    if (typeof job[field] !== 'string' || !job[field]) throw new PodResultError(`${dir}/job.json: ${field} is missing`);
  if (result.error) throw new PodResultError(`${dir}: the pod failed: ${result.error}`);
  if (pairFromFolder(db, job.instance, dir) !== null) return null;
  const ids: Record<string, number | null> = {};
  const summaries: (TraceSummary & {format: string})[] = [];
  try {
    for (const [side, run] of [
      ['buggy', 1],
      ['patched', 1],
      ['buggy', 2],
      ['patched', 2],
    ] as const) {
      const file = join(dir, `${side}-${run}.jsonl`);
      if (run === 2 && !existsSync(file)) {
        ids[`${side}${run}`] = null;
        continue;
      }
      const id = createTrace(db, {
        instance: job.instance,
        versionKind: side === 'buggy' ? 'buggy' : job.label === 'gold' ? 'gold' : 'agent',
        patch: side === 'buggy' ? null : job.diff,
        trajectory: null,
        test: job.test,
        side,
        run,
        label: job.label,
        sandbox: job.image ? `pod (${job.image})` : 'pod',
      });
      ids[`${side}${run}`] = id;
      const summary = ingestTraceFile(db, file, id);
      setTraceFormat(db, id, summary.format);
      if (run === 1) summaries.push(summary);
    }
  } catch (error) {
    for (const id of Object.values(ids)) if (id !== null) deleteTrace(db, id);
    throw error;
  }
  const b = ids.buggy1!;
  const p = ids.patched1!;
  const nondeterminism = rerunNondeterminism(db, [
    {first: b, second: ids.buggy2 ?? null},
    {first: p, second: ids.patched2 ?? null},
  ]);
  const result1 = extractDelta({
    buggy: new StoredTrace(db, b),
    patched: new StoredTrace(db, p),
    map: new LineMap(job.changes ?? null),
    options: o.options,
    nondeterminism,
  });
  const pair = insertPair(db, {
    instance: job.instance,
    label: job.label,
    test: job.test,
    buggyTrace: b,
    patchedTrace: p,
    buggyRerun: ids.buggy2 ?? null,
    patchedRerun: ids.patched2 ?? null,
    trajectory: null,
    changes: job.changes ?? null,
    patch: job.diff ?? null,
    workspace: {kind: 'pod', dir, image: job.image ?? null},
  });
  const id = saveDelta(db, b, p, pair, result1);
  return {pair, buggy: b, patched: p, delta: {...result1, id}, summaries};
}
