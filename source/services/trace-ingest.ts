/**
 * Trace files into the store, streamed: one line at a time, rows written in batched
 * transactions, so a trace of millions of events never sits in memory.
 */
import {existsSync, statSync} from 'node:fs';
import {RecordError, TraceAssembler} from '../core/trace/records.js';
import {ConvertError, isSweBenchTracerEvent, SweBenchTracerConverter} from '../core/trace/swe-bench-tracer.js';
import type {TraceStatus} from '../core/trace/model.js';
import {FormatError} from '../core/trajectory/model.js';
import type {Db} from '../store/db.js';
import {extractDelta, type DeltaOption, type DeltaResult} from '../core/trace/delta.js';
import {LineMap} from '../core/trace/line-map.js';
import {createTrace, deleteTrace, finishTrace, insertPair, saveDelta, setTraceFormat, StoredTrace, traceWriter, type TraceSummary} from '../store/traces.js';
import {resolve} from 'node:path';
import {readLines} from './text-file.js';

const MAX_LINE = 512 * 1024 * 1024;

export interface IngestContext {
  /** the tracer process was killed by the wall-clock timeout */
  timedOut?: boolean;
  /** the tracer's stderr tail, kept when the trace is not complete */
  stderr?: string;
  exitCode?: number | null;
  onProgress?: (events: number) => void;
}

/**
 * Reads a deltatrace file, or a swe-bench-tracer-py file (recognised by its first event and
 * converted on the fly), into the trace `traceId`.
 */
export function ingestTraceFile(db: Db, path: string, traceId: number, ctx: IngestContext = {}): TraceSummary & {format: string} {
  const writer = traceWriter(db, traceId);
  const asm = new TraceAssembler(writer);
  let converter: SweBenchTracerConverter | null | undefined;
  let error: string | null = null;
  let status: TraceStatus;
  try {
    if (!existsSync(path) || statSync(path).size === 0) {
      status = ctx.timedOut ? 'timeout' : 'crashed';
      error = `no trace written${ctx.exitCode != null ? ` (tracer exit code ${ctx.exitCode})` : ''}${ctx.stderr ? `: ${ctx.stderr.trim().split('\n').slice(-5).join(' | ')}` : ''}`;
    } else {
      let badLine: {line: number; message: string} | null = null;
      for (const raw of readLines(path, MAX_LINE)) {
        if (badLine) {
          // a bad line followed by more lines is corruption, not a cut-off write
          throw new FormatError(`invalid trace record: ${badLine.message}`, {path, line: badLine.line});
        }
        if (!raw.text.trim()) continue;
        let rec: Record<string, unknown>;
        try {
          rec = JSON.parse(raw.text) as Record<string, unknown>;
        } catch (e) {
          badLine = {line: raw.line, message: (e as Error).message};
          continue;
        }
        try {
          if (converter === undefined) {
            converter = isSweBenchTracerEvent(rec) ? new SweBenchTracerConverter() : null;
            if (converter) asm.add({t: 'header', format: 1, tracer: 'swe-bench-tracer-py (converted by deltalens)', python: null});
          }
          for (const r of converter ? converter.convert(rec) : [rec]) asm.add(r);
        } catch (e) {
          if (e instanceof RecordError || e instanceof ConvertError) throw new FormatError(e.message, {path, line: raw.line});
          throw e;
        }
        if (ctx.onProgress && asm.events % 50_000 === 0) ctx.onProgress(asm.events);
      }
      if (converter) for (const r of converter.finish()) asm.add(r);
      writer.finish();
      status = asm.status;
      if (ctx.timedOut && status === 'crashed') status = 'timeout';
      if (badLine) error = `the last line was cut off (${badLine.message})`;
      if (status === 'error') error = asm.outcome?.error ?? 'the test did not run';
      if (status === 'crashed' && !error) error = `the trace ends without an end record${ctx.stderr ? `: ${ctx.stderr.trim().split('\n').slice(-5).join(' | ')}` : ''}`;
      if (status === 'timeout' && !error) error = 'killed by the wall-clock timeout';
    }
  } catch (e) {
    deleteTrace(db, traceId);
    throw e;
  }
  writer.finish();
  const summary: TraceSummary = {
    status,
    header: asm.header,
    outcome: asm.outcome,
    events: asm.events,
    frames: asm.frames,
    bytes: existsSync(path) ? statSync(path).size : 0,
    error,
    truncated: asm.truncated !== null,
  };
  finishTrace(db, traceId, summary);
  return {...summary, format: converter ? 'swe-bench-tracer' : 'deltatrace'};
}

export interface ImportedPair {
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
      const id = createTrace(db, {instance: o.instance, versionKind: side === 'buggy' ? 'buggy' : 'gold', patch: null, trajectory: null, test: o.test, side, run: 1, label: o.label});
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
  const result = extractDelta({buggy: new StoredTrace(db, b), patched: new StoredTrace(db, p), map: new LineMap(null), options: o.options});
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
