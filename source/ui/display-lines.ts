/**
 * Text as display lines (sanitized later, wrapped to a width, with a role for the colour): what
 * the explorer's text views draw and what commands print. No Ink here, so a command can use it.
 */
import {sanitize, wrapLines} from '../core/text/sanitize.js';
import type {Language} from './highlight.js';

/** A display line: already sanitized and wrapped to the view's width. */
export interface DisplayLine {
  text: string;
  language?: Language;
  role?: 'heading' | 'muted' | 'added' | 'removed' | 'hunk';
  /** what the line is about (an agent on the rankings), for a screen with a cursor over lines */
  ref?: string;
  /** ranges of the line to mark (code-reasoning spans in a thought), as [start, end) offsets */
  marks?: [number, number][];
}

/**
 * A text wrapped to a width with ranges of it marked (offsets into the text): each line carries the
 * parts of the ranges that fall on it. A text that sanitizing would change is wrapped unmarked.
 */
export function markedBlock(text: string, width: number, ranges: [number, number][]): DisplayLine[] {
  if (sanitize(text) !== text) return textBlock(text, width);
  const out: DisplayLine[] = [];
  let at = 0;
  for (const source of text.split('\n')) {
    // wrapping keeps every character of a source line, in order
    for (const line of wrapLines(source, width)) {
      const start = at;
      at += line.length;
      const marks = ranges.flatMap(([x, y]) =>
        y > start && x < at ? [[Math.max(x, start) - start, Math.min(y, at) - start] as [number, number]] : [],
      );
      out.push(marks.length ? {text: line, marks} : {text: line});
    }
    at += 1;
  }
  return out;
}

export function textBlock(text: string, width: number, language: Language = 'plain'): DisplayLine[] {
  return wrapLines(text, width).map(line => ({text: line, language}));
}

/** Unified diff lines coloured by their first character. */
export function diffBlock(patch: string, width: number): DisplayLine[] {
  return wrapLines(patch, width).map(line => ({
    text: line,
    role:
      line.startsWith('+++') || line.startsWith('---')
        ? 'heading'
        : line.startsWith('+')
          ? 'added'
          : line.startsWith('-')
            ? 'removed'
            : line.startsWith('@@')
              ? 'hunk'
              : undefined,
  }));
}
