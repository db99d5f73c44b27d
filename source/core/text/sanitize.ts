/**
 * Untrusted text (tool output, observations, patches) is stripped of terminal control
 * sequences before it reaches the screen: an escape sequence in an observation must not move
 * the cursor, clear the screen or retitle the terminal. Tabs become spaces; CR-overwrites
 * (progress bars) keep what the terminal would finally show.
 */

// CSI, OSC (BEL or ST terminated), other two-byte ESC sequences, then lone C0/C1 controls.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[@-Z\\-_]?|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]/g;

export function sanitize(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map(line => (line.includes('\r') ? line.slice(line.lastIndexOf('\r') + 1) : line))
    .join('\n')
    .replace(ESCAPES, '')
    .replace(/\t/g, '    ');
}

/** One line for a list cell: first line only, control-free, cut to `width` with an ellipsis. */
export function oneLine(text: string | null | undefined, width: number): string {
  if (!text || width <= 0) return '';
  const first = sanitize(text).replace(/\s+/g, ' ').trim();
  return fit(first, width);
}

export function fit(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 1 ? chars.slice(0, width).join('') : `${chars.slice(0, width - 1).join('')}…`;
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
