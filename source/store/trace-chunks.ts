/**
 * The chunk codec of stored traces (see db/003_traces.sql and db/009_compact_traces.sql).
 *
 * A chunk is up to CHUNK consecutive items of one trace, as columns. Storage 1 (before 009)
 * packs aux float64 | seq | fid | line int32 | kind uint8, raw; the states live in trace_step.
 * Storage 2 deflates the columns (plus a state length per item) into `data` and the items'
 * states, one after the other, into `states`: a trace then costs a few bytes per control-flow
 * event and its values compressed.
 */
import {deflateRawSync, inflateRawSync, constants} from 'node:zlib';
import type {StepRow} from '../core/trace/records.js';
import {UNRECORDED} from '../core/trace/model.js';

export const CHUNK = 1024;
const KIND_CODE = {line: 0, call: 1, return: 2, exception: 3} as const;
export const KIND_NAME = ['line', 'call', 'return', 'exception'] as const;
/** kind flag: the item's value was not recorded */
export const UNRECORDED_FLAG = 8;

// level 1: four to five times smaller than raw JSON at ~100 MB/s; higher levels gain little on
// this data and cost several times the time
const DEFLATE = {level: 1, strategy: constants.Z_DEFAULT_STRATEGY};

/** Columns over a run of consecutive items; `states` decoded on demand. */
export interface Window {
  n: number;
  seq: Int32Array;
  fid: Int32Array;
  line: Int32Array;
  aux: Float64Array;
  kind: Uint8Array;
  /** storage 2: each item's state as bytes in the states blob (start offsets, n + 1 entries) */
  offsets?: Uint32Array;
  statesBlob?: Buffer | null;
  states?: Buffer | null;
}

/** Accumulates items; `take` packs them (storage 2). */
export class ChunkBuilder {
  private seq: number[] = [];
  private fid: number[] = [];
  private line: number[] = [];
  private aux: number[] = [];
  private kind: number[] = [];
  private states: Buffer[] = [];
  private bytes = 0;

  get n(): number {
    return this.seq.length;
  }

  /** bytes of state text held (a chunk of huge states is cut early) */
  get stateBytes(): number {
    return this.bytes;
  }

  add(s: StepRow): void {
    const unrecorded = s.kind !== 'call' && s.hash === UNRECORDED;
    this.seq.push(s.seq);
    this.fid.push(s.fid);
    this.line.push(s.line ?? 0);
    this.kind.push(KIND_CODE[s.kind] | (unrecorded ? UNRECORDED_FLAG : 0));
    this.aux.push(s.kind === 'call' ? Number(s.state.slice(10, -1)) : unrecorded ? 0 : (s.hash ?? 0));
    const state = s.kind === 'call' || unrecorded ? EMPTY : Buffer.from(s.state, 'utf8');
    this.states.push(state);
    this.bytes += state.length;
  }

  take(): {first: number; last: number; n: number; data: Buffer; states: Buffer} {
    const n = this.n;
    const raw = Buffer.alloc(4 + n * 25);
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    view.setUint32(0, n, true);
    let at = 4;
    for (const col of [this.seq, this.fid, this.line])
      for (let i = 0; i < n; i++, at += 4) view.setInt32(at, col[i]!, true);
    for (let i = 0; i < n; i++, at += 1) view.setUint8(at, this.kind[i]!);
    for (let i = 0; i < n; i++, at += 8) view.setFloat64(at, this.aux[i]!, true);
    for (let i = 0; i < n; i++, at += 4) view.setUint32(at, this.states[i]!.length, true);
    const out = {
      first: this.seq[0]!,
      last: this.seq[n - 1]!,
      n,
      data: deflateRawSync(raw, DEFLATE),
      states: deflateRawSync(Buffer.concat(this.states, this.bytes), DEFLATE),
    };
    this.seq = [];
    this.fid = [];
    this.line = [];
    this.aux = [];
    this.kind = [];
    this.states = [];
    this.bytes = 0;
    return out;
  }
}

const EMPTY = Buffer.alloc(0);

/** A storage-2 chunk's columns (its states stay deflated until asked for). */
export function decodeChunk(data: Buffer, states: Buffer | null): Window {
  const raw = inflateRawSync(data);
  // copy into an aligned buffer, then view each column
  const buf = new ArrayBuffer(raw.byteLength);
  new Uint8Array(buf).set(raw);
  const view = new DataView(buf);
  const n = view.getUint32(0, true);
  let at = 4;
  const int32 = () => {
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++, at += 4) out[i] = view.getInt32(at, true);
    return out;
  };
  const seq = int32();
  const fid = int32();
  const line = int32();
  const kind = new Uint8Array(buf, at, n).slice();
  at += n;
  const aux = new Float64Array(n);
  for (let i = 0; i < n; i++, at += 8) aux[i] = view.getFloat64(at, true);
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++, at += 4) offsets[i + 1] = offsets[i]! + view.getUint32(at, true);
  return {n, seq, fid, line, kind, aux, offsets, statesBlob: states, states: null};
}

/** The state text of item `i` of a storage-2 window. */
export function stateAt(w: Window, i: number): string {
  if (!w.offsets) return '';
  if (!w.states) w.states = w.statesBlob ? inflateRawSync(w.statesBlob) : EMPTY;
  return w.states.toString('utf8', w.offsets[i]!, w.offsets[i + 1]!);
}

/** Storage-1 chunks (raw columns), concatenated. */
export function decodeChunks(blobs: {n: number; data: Buffer}[]): Window {
  const n = blobs.reduce((sum, b) => sum + b.n, 0);
  const w: Window = {
    n,
    seq: new Int32Array(n),
    fid: new Int32Array(n),
    line: new Int32Array(n),
    aux: new Float64Array(n),
    kind: new Uint8Array(n),
  };
  let at = 0;
  for (const {n: m, data} of blobs) {
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

export function lowerBound(a: Int32Array, x: number, n = a.length): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A frame's arguments and outcome (JSON) as stored: texts of PACK_MIN characters or more are
 * deflated into a BLOB (sympy values compress about 4.5×: 35 MB of them to 7.6 MB on a real
 * test), shorter ones stay TEXT. unpackText reads both.
 */
const PACK_MIN = 256;

export function packText(text: string): string | Buffer {
  return text.length < PACK_MIN ? text : deflateRawSync(Buffer.from(text, 'utf8'), DEFLATE);
}

export function unpackText(value: string | Buffer): string {
  return typeof value === 'string' ? value : inflateRawSync(value).toString('utf8');
}
