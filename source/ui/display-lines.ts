/**
 * Text as display lines (sanitized later, wrapped to a width, with a role for the colour): what
 * the explorer's text views draw and what commands print. No Ink here, so a command can use it.
 */
import {wrapLines} from '../core/text/sanitize.js';
import type {Language} from './highlight.js';

/** A display line: already sanitized and wrapped to the view's width. */
export interface DisplayLine {
  text: string;
  language?: Language;
  role?: 'heading' | 'muted' | 'added' | 'removed' | 'hunk';
  /** what the line is about (an agent on the rankings), for a screen with a cursor over lines */
  ref?: string;
}

export function textBlock(text: string, width: number, language: Language = 'plain'): DisplayLine[] {
  return wrapLines(text, width).map(line => ({text: line, language}));
}

/** Unified diff lines coloured by their first character. */
export function diffBlock(patch: string, width: number): DisplayLine[] {
  return wrapLines(patch, width).map(line => ({
    text: line,
    role: line.startsWith('+++') || line.startsWith('---') ? 'heading' : line.startsWith('+') ? 'added' : line.startsWith('-') ? 'removed' : line.startsWith('@@') ? 'hunk' : undefined,
  }));
}
