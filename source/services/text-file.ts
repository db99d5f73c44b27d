import {closeSync, openSync, readFileSync, readSync} from 'node:fs';
import {FormatError} from '../core/trajectory/model.js';

/** Reading untrusted files as strict UTF-8, with errors that say where the bad bytes are. */

const strict = new TextDecoder('utf-8', {fatal: true});

function decodeUtf8(bytes: Uint8Array, lineOffset = 0): string {
  try {
    return strict.decode(bytes);
  } catch {
    const {line, column, byte} = firstInvalidUtf8(bytes);
    throw new FormatError(`invalid UTF-8 byte 0x${bytes[byte]!.toString(16).padStart(2, '0')} (byte offset ${byte})`, {
      line: line + lineOffset,
      column,
    });
  }
}

export function readUtf8File(path: string): {text: string; bytes: Buffer} {
  const bytes = readFileSync(path);
  return {bytes, text: decodeUtf8(bytes)};
}

function firstInvalidUtf8(bytes: Uint8Array): {line: number; column: number; byte: number} {
  let line = 1;
  let lineStart = 0;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const length = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    let ok = length > 0 && i + length <= bytes.length;
    for (let k = 1; ok && k < length; k++) ok = (bytes[i + k]! & 0xc0) === 0x80;
    if (ok && length === 3) ok = !(b === 0xe0 && bytes[i + 1]! < 0xa0) && !(b === 0xed && bytes[i + 1]! >= 0xa0);
    if (ok && length === 4) ok = !(b === 0xf0 && bytes[i + 1]! < 0x90) && !(b === 0xf4 && bytes[i + 1]! >= 0x90);
    if (!ok) return {line, column: i - lineStart + 1, byte: i};
    if (b === 0x0a) {
      line++;
      lineStart = i + 1;
    }
    i += length;
  }
  return {line, column: i - lineStart + 1, byte: Math.max(0, bytes.length - 1)};
}

/** JSON.parse with the failure turned into a line and column. */
export function parseJson(text: string, lineOffset = 0): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message);
    const offset = position ? Number(position[1]) : text.length;
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    const column = offset - before.lastIndexOf('\n');
    const reason = message
      .replace(/ in JSON at position \d+.*$/s, '')
      .replace(/^Unexpected end of JSON input$/, 'unexpected end of input (truncated JSON?)');
    throw new FormatError(`invalid JSON: ${reason}`, {line: line + lineOffset, column});
  }
}

export interface RawLine {
  text: string;
  line: number;
  bytes: Buffer;
}

/**
 * Lines of a file, read in 1 MiB chunks so a large JSONL file is never held whole. Each line
 * is decoded as strict UTF-8; a line longer than `maxLineBytes` is an error, not a hang.
 */
export function* readLines(path: string, maxLineBytes: number): Generator<RawLine> {
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let line = 1;
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      let start = 0;
      for (let i = chunk.indexOf(0x0a, 0); i !== -1 && i < read; i = chunk.indexOf(0x0a, i + 1)) {
        const bytes = Buffer.concat([...pending, chunk.subarray(start, i)]);
        pending = [];
        pendingBytes = 0;
        yield {text: decodeUtf8(bytes, line - 1), line, bytes};
        line++;
        start = i + 1;
      }
      if (start < read) {
        pending.push(Buffer.from(chunk.subarray(start, read)));
        pendingBytes += read - start;
        if (pendingBytes > maxLineBytes) {
          throw new FormatError(`line is longer than ${maxLineBytes} bytes (raise --max-size)`, {line});
        }
      }
    }
    if (pendingBytes > 0) {
      const bytes = Buffer.concat(pending);
      yield {text: decodeUtf8(bytes, line - 1), line, bytes};
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The same lines from a stream: chunks go in as they arrive, complete lines come out. Bytes are
 * kept only until their line ends; a line longer than `maxLineBytes` is an error.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private line = 1;

  constructor(private readonly maxLineBytes: number) {}

  /** The lines completed by `chunk` (text decoded as strict UTF-8). */
  push(chunk: Buffer): RawLine[] {
    const out: RawLine[] = [];
    let start = 0;
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) {
      const bytes = this.pending.length
        ? Buffer.concat([...this.pending, chunk.subarray(start, i)])
        : Buffer.from(chunk.subarray(start, i));
      this.pending = [];
      this.pendingBytes = 0;
      out.push({text: decodeUtf8(bytes, this.line - 1), line: this.line, bytes});
      this.line++;
      start = i + 1;
    }
    if (start < chunk.length) {
      this.pending.push(Buffer.from(chunk.subarray(start)));
      this.pendingBytes += chunk.length - start;
      if (this.pendingBytes > this.maxLineBytes)
        throw new FormatError(`line is longer than ${this.maxLineBytes} bytes`, {line: this.line});
    }
    return out;
  }

  /** The last line when the stream did not end with a newline. */
  end(): RawLine | null {
    if (!this.pendingBytes) return null;
    const bytes = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    return {text: decodeUtf8(bytes, this.line - 1), line: this.line, bytes};
  }
}
