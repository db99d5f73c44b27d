/**
 * What commands print. Every text a command prints may hold text from data (names, thoughts,
 * observations, paths), so it goes through here: plain output is sanitized of terminal control
 * sequences and bidi controls; JSON escapes the characters a terminal could act on.
 */
import {fit, sanitize, terminalSafeJson} from '../core/text/sanitize.js';

/**
 * What a closed output pipe (`deltalens report | head`) does: by default the command ends there,
 * exit 0 — nothing more is wanted. A command whose work is not its output (build-demo) goes on
 * to its end instead, and what it would still print is dropped.
 */
export const closedPipe = {policy: 'exit' as 'exit' | 'keep-going'};

/** A line (or lines) on stdout, sanitized. */
export function say(text = ''): void {
  process.stdout.write(`${sanitize(text)}\n`);
}

/** A line on stderr, sanitized. */
export function warn(text: string): void {
  process.stderr.write(`${sanitize(text)}\n`);
}

/** Output helpers: JSON is printed whole, with a trailing newline, and nothing else on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${terminalSafeJson(JSON.stringify(value, null, 2))}\n`);
}

/** A cell of a plain table: one line, sanitized. */
export function cell(text: string | null | undefined): string {
  return sanitize(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Progress of a long job on stderr: on a terminal one line rewritten in place (`done()` clears
 * it); elsewhere (a pipe, a log) a line each.
 */
export function progressOnStderr(indent = '  '): {step: (message: string) => void; done: () => void} {
  const tty = process.stderr.isTTY;
  if (!tty) return {step: message => warn(`${indent}${message}`), done: () => {}};
  const width = () => (process.stderr.columns ?? 80) - 1;
  return {
    step: message => process.stderr.write(`\r\x1b[K${fit(`${indent}${cell(message)}`, width())}`),
    done: () => process.stderr.write('\r\x1b[K'),
  };
}
