/**
 * Trace files into the store, streamed: one line at a time, rows written in batched
 * transactions, so a trace of millions of events never sits in memory.
 */
import {existsSync, statSync} from 'node:fs';
import {RecordError, TraceAssembler} from '../core/trace/records.js';
import type {TraceStatus} from '../core/trace/model.js';
import {FormatError} from '../core/trajectory/model.js';
import type {Db} from '../store/db.js';
import {deleteTrace, finishTrace, traceWriter, type TraceSummary} from '../store/traces.js';
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

export function ingestTraceFile(db: Db, path: string, traceId: number, ctx: IngestContext = {}): TraceSummary {
  const writer = traceWriter(db, traceId);
  const asm = new TraceAssembler(writer);
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
          asm.add(rec);
        } catch (e) {
          if (e instanceof RecordError) throw new FormatError(e.message, {path, line: raw.line});
          throw e;
        }
        if (ctx.onProgress && asm.events % 50_000 === 0) ctx.onProgress(asm.events);
      }
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
  return summary;
}
