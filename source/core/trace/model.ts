/**
 * Traces as Algorithm 1 sees them: a tree of frames, each frame an ordered stream of
 * items — the lines it finished, the calls it made, and how it ended.
 *
 * Values are kept as the tracer's JSON encoding (see tracer/deltatrace/serialize.py),
 * as text: equal text means equal values, which makes the common case cheap.
 */

export type TraceStatus = 'complete' | 'truncated' | 'timeout' | 'crashed' | 'error' | 'missing';

export interface Outcome {
  /** return | yield | exception, or for the virtual root frame the test's status */
  kind: string;
  /** encoded return value (JSON text) */
  value?: string;
  /** exception type and message */
  exception?: {type: string; message?: string};
  line?: number | null;
  /** the frame's result was not recorded (a skeleton run, or outside what a plan asked for) */
  unrecorded?: boolean;
}

export interface FrameInfo {
  fid: number;
  parent: number | null;
  fn: string;
  file: string;
  defLine: number;
  callSeq: number;
  callLine: number | null;
  resume: boolean;
  /** JSON text of {name: encoded} at entry; '' when not recorded */
  args: string;
  outcome: Outcome | null;
}

/** What a frame recorded of its values: its arguments at entry and its result (JSON text; ''
 * when not recorded). */
export interface FrameValues {
  file: string;
  fn: string;
  args: string;
  outcome: Outcome | null;
}

/**
 * `hash` is stateHash(state): equal hashes are taken as equal states without reading the
 * text (a store may then fetch `state` lazily).
 */
export type Item =
  | {kind: 'line'; seq: number; line: number; hash: number; readonly state: string}
  | {kind: 'call'; seq: number; line: number | null; callee: number}
  | {kind: 'return' | 'exception'; seq: number; line: number | null; hash: number; readonly state: string};

/** The hash of an item whose value was not recorded (its state text is ''). */
export const UNRECORDED = -1;

/** Whether an item's value was recorded: line and end items carry a state hash, -1 when not. */
export function recorded(item: Item): boolean {
  return item.kind === 'call' || item.hash !== UNRECORDED;
}

/** 53-bit FNV-1a of a state's JSON text (two 32-bit lanes), so equal states compare as numbers. */
export function stateHash(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}

/** The virtual root: fid 0, whose items are the calls of top-level frames (tests, fixtures). */
export const ROOT_FID = 0;

/**
 * Read access to one stored trace. Pages keep memory bounded on traces of millions of
 * steps: the walker holds one page per active frame, never the whole trace.
 */
export interface TraceSource {
  readonly status: TraceStatus;
  /** the test outcome, as the root frame's outcome */
  readonly outcome: Outcome | null;
  frame(fid: number): FrameInfo | undefined;
  /**
   * Items of a frame with seq > afterSeq, in order, at most `limit`. A page may be shorter
   * than `limit` while more items follow; an empty page means the frame has no more.
   */
  items(fid: number, afterSeq: number, limit: number): Item[];
  /** the first frame (by call order) of a function, for the start-at-patched-function option */
  findFrame?(file: string, fn: string): FrameInfo | undefined;
  /** the source line's text, when sources were stored (for statement matching by text) */
  sourceLine?(file: string, line: number): string | undefined;
}

/** A state step's payload: {"ch": {name: value}, "del": [names], "full": {...}} */
export interface StepState {
  ch: Record<string, unknown>;
  del?: string[];
  full?: Record<string, unknown>;
}

/** A frame end's payload: return/yield value or exception, plus the frame's locals. */
export interface EndState {
  kind?: string;
  value?: unknown;
  exc?: {type: string; message?: string; args?: unknown};
  locals?: Record<string, unknown>;
}
