/**
 * Traces written by swe-bench-tracer-py (the tracer of the public ExplainBench code), turned
 * into deltatrace records so the same store, Algorithm 1 and stepper work on them.
 *
 * Their events: `Function` (a frame starts; `parameters`), `Line` (a line finished;
 * `seen_variables`: the frame's values after it), `Return` (`return_value`), `Exception`
 * (`exception_type`, `exception_value`; followed by the frame's `Return` when it leaves the
 * frame). There are no frame ids: frames are rebuilt from the event order. Values are their
 * jsonpickle-style JSON, kept as they are. Each line's `statement` text becomes the source
 * (other lines empty), so statements can be matched by text.
 */
import {maxOf} from '../arrays.js';

export class ConvertError extends Error {}

type Rec = Record<string, unknown>;

interface Frame {
  fid: number;
  fn: string;
  file: string;
  seen: Map<string, string>;
  lastLine: number | null;
  exc: {type: string; message?: string} | null;
}

export function isSweBenchTracerEvent(rec: Rec): boolean {
  return typeof rec.event_type === 'string' && 'event_id' in rec;
}

export class SweBenchTracerConverter {
  private readonly stack: Frame[] = [];
  private nextFid = 1;
  private seq = 0;
  private readonly sources = new Map<string, Map<number, string>>();
  private topOutcome: {status: string; exc?: {type: string; message?: string}; line?: number | null} | null = null;
  private prefix: string | null;

  constructor(prefix: string | null = null) {
    this.prefix = prefix;
  }

  private rel(path: string): string {
    if (this.prefix === null) {
      // the container path the traces were made in (/testbed/… for SWE-bench)
      const m = /^(\/testbed\/|\/[^/]+\/)/.exec(path);
      this.prefix = m ? m[1]! : '';
    }
    return path.startsWith(this.prefix) ? path.slice(this.prefix.length) : path;
  }

  private remember(file: string, line: unknown, statement: unknown): void {
    if (typeof line !== 'number' || typeof statement !== 'string' || !statement) return;
    let lines = this.sources.get(file);
    if (!lines) this.sources.set(file, (lines = new Map()));
    lines.set(line, statement);
  }

  /** deltatrace records for one event, in order. */
  convert(ev: Rec): Rec[] {
    const type = ev.event_type;
    const file = this.rel(String(ev.filepath ?? ''));
    const qual = String(ev.function_name ?? '?');
    const fn = qual.includes(':') ? qual.slice(qual.indexOf(':') + 1) : qual;
    const line = typeof ev.line_number === 'number' ? ev.line_number : null;
    this.remember(file, line, ev.statement);
    const top = this.stack.at(-1);
    switch (type) {
      case 'Function': {
        const fid = this.nextFid++;
        const locals = (ev.parameters ?? {}) as Rec;
        const frame: Frame = {
          fid,
          fn,
          file,
          seen: new Map(Object.entries(locals).map(([k, v]) => [k, JSON.stringify(v)])),
          lastLine: null,
          exc: null,
        };
        this.stack.push(frame);
        return [
          {
            t: 'call',
            seq: ++this.seq,
            fid,
            parent: top?.fid ?? null,
            fn,
            file,
            def: line ?? 0,
            ...(top?.lastLine != null ? {call_line: top.lastLine} : {}),
            locals,
          },
        ];
      }
      case 'Line': {
        if (!top) throw new ConvertError(`a Line event (event_id ${String(ev.event_id)}) outside any frame`);
        const seen = (ev.seen_variables ?? {}) as Rec;
        const ch: Rec = {};
        for (const [k, v] of Object.entries(seen)) {
          const text = JSON.stringify(v);
          if (top.seen.get(k) !== text) {
            ch[k] = v;
            top.seen.set(k, text);
          }
        }
        top.exc = null;
        top.lastLine = line;
        return [{t: 'line', seq: ++this.seq, fid: top.fid, line: line ?? 0, ch}];
      }
      case 'Exception': {
        if (!top) throw new ConvertError(`an Exception event (event_id ${String(ev.event_id)}) outside any frame`);
        top.exc = {
          type: String(ev.exception_type ?? '?'),
          ...(ev.exception_value != null ? {message: String(ev.exception_value)} : {}),
        };
        return [];
      }
      case 'Return': {
        const frame = this.stack.pop();
        if (!frame) throw new ConvertError(`a Return event (event_id ${String(ev.event_id)}) without a frame`);
        const locals = Object.fromEntries([...frame.seen].map(([k, v]) => [k, JSON.parse(v) as unknown]));
        if (!this.stack.length) {
          this.topOutcome = frame.exc ? {status: 'failed', exc: frame.exc, line} : {status: 'passed'};
        }
        if (frame.exc) return [{t: 'exception', seq: ++this.seq, fid: frame.fid, line, exc: frame.exc, locals}];
        return [
          {t: 'return', seq: ++this.seq, fid: frame.fid, line, kind: 'return', value: ev.return_value ?? null, locals},
        ];
      }
      default:
        throw new ConvertError(`unknown event_type "${String(type)}" (event_id ${String(ev.event_id)})`);
    }
  }

  /** Records that close the trace: sources, the outcome (inferred from the entry frame), end. */
  finish(): Rec[] {
    const out: Rec[] = [];
    for (const [file, lines] of this.sources) {
      const n = maxOf(lines.keys(), 0);
      const text = Array.from({length: n}, (_, i) => lines.get(i + 1) ?? '').join('\n');
      out.push({t: 'source', file, text, partial: true});
    }
    const complete = this.stack.length === 0 && this.topOutcome !== null;
    const o = this.topOutcome;
    out.push({
      t: 'outcome',
      status: o?.status ?? 'error',
      tests: o
        ? [
            {
              nodeid: 'entry frame',
              outcome: o.status,
              ...(o.exc ? {exc_type: o.exc.type, message: o.exc.message, line: o.line ?? null} : {}),
            },
          ]
        : [],
      ...(o ? {} : {error: 'the trace has no complete entry frame'}),
      inferred: 'from the entry frame: an exception leaving it is a failure',
    });
    if (complete) out.push({t: 'end', events: this.seq, frames: this.nextFid - 1});
    return out;
  }
}
