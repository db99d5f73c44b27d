/**
 * Untrusted text (tool output, observations, patches, names from data) is stripped of terminal
 * control sequences before it reaches the screen: an escape sequence in an observation must not
 * move the cursor, clear the screen, retitle the terminal, write the clipboard (OSC 52) or ask
 * the terminal to answer (cursor and device queries), and a bidi override must not reorder what
 * is shown. Tabs become spaces; CR-overwrites (progress bars) keep what the terminal would
 * finally show; Unicode line and paragraph separators become line breaks.
 */

// CSI, OSC (BEL or ST terminated, or cut off), DCS/SOS/PM/APC strings, other two-byte ESC
// sequences, then lone C0/C1 controls (8-bit CSI/OSC included).
const ESCAPES =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?|\x1b[@-Z\\-_]?|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]/g;
// Bidi embeddings, overrides, isolates and marks (the "Trojan Source" characters).
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// What a plain text dump must escape beyond JSON's own escaping of C0 controls.
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** What a NUL byte in data is shown as (the text after it stays). */
export const NUL_MARK = '\u2400';

export function sanitize(text: string): string {
  let out = text.replace(/[\u2028\u2029]/g, '\n');
  if (out.includes('\0')) out = out.replace(/\0/g, NUL_MARK);
  // a carriage return overwrites its line: keep what follows the last one (no split: a step can
  // hold hundreds of megabytes)
  if (out.includes('\r')) out = out.replace(/\r\n/g, '\n').replace(/[^\n]*\r/g, '');
  return out.replace(ESCAPES, '').replace(BIDI, '').replace(/\t/g, '    ');
}

/** JSON text with every character a terminal could act on written as a \\u escape (JSON already
 * escapes C0 controls; this adds DEL, C1, bidi controls and the Unicode separators). Parses to
 * the same value. */
export function terminalSafeJson(json: string): string {
  return json.replace(JSON_UNSAFE, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One line for a list cell: first line only, control-free, cut to `width` with an ellipsis. */
export function oneLine(text: string | null | undefined, width: number): string {
  if (!text || width <= 0) return '';
  const first = sanitize(text).replace(/\s+/g, ' ').trim();
  return fit(first, width);
}

/** One line cut to `width` code points with an ellipsis; sanitized (every list cell, header and
 * status line of the explorer goes through here, so data never reaches the terminal raw). */
export function fit(text: string, width: number): string {
  // a cell shows at most `width` characters: sanitize a bounded prefix, not a whole observation
  const clean = sanitize(text.length > width * 4 + 4096 ? text.slice(0, width * 4 + 4096) : text).replace(/\n/g, ' ');
  const chars = [...clean];
  if (chars.length <= width) return clean;
  return width <= 1 ? chars.slice(0, width).join('') : `${chars.slice(0, width - 1).join('')}…`;
}

/**
 * Like fit, but cut in the middle: names that differ only at their end (two runs of one agent,
 * `…-baseline-truncated-16k` and `…-audited`) stay distinct. The tail keeps a third of the width.
 */
export function fitMiddle(text: string, width: number): string {
  // sanitized, on one line; a name longer than 64 widths keeps its first 64 (fit's bound)
  const whole = fit(text, Math.max(1, width) * 64);
  const chars = [...whole];
  if (chars.length <= width) return whole;
  if (width <= 4) return fit(text, width);
  const tail = Math.max(1, Math.floor((width - 1) / 3));
  const head = width - 1 - tail;
  return `${chars.slice(0, head).join('')}…${chars.slice(chars.length - tail).join('')}`;
}

/** fitMiddle, padded to `width`. */
export function padMiddle(text: string, width: number): string {
  const fitted = fitMiddle(text, width);
  return fitted + ' '.repeat(Math.max(0, width - [...fitted].length));
}

export function pad(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const fitted = fit(text, width);
  const gap = ' '.repeat(Math.max(0, width - [...fitted].length));
  return align === 'left' ? fitted + gap : gap + fitted;
}

/** Hard-wraps sanitized text into display lines of at most `width` code points. */
export function wrapLines(text: string, width: number): string[] {
  const out: string[] = [];
  const w = Math.max(1, width);
  for (const line of sanitize(text).split('\n')) {
    const chars = [...line];
    if (chars.length === 0) {
      out.push('');
      continue;
    }
    let start = 0;
    while (chars.length - start > w) {
      // Break after the last space in the final third of the line, else mid-word.
      let cut = start + w;
      for (let i = start + w - 1; i > start + Math.floor((w * 2) / 3); i--) {
        if (chars[i] === ' ') {
          cut = i + 1;
          break;
        }
      }
      out.push(chars.slice(start, cut).join(''));
      start = cut;
    }
    if (start < chars.length) out.push(chars.slice(start).join(''));
  }
  return out;
}
