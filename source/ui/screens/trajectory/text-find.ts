import type {Key} from 'ink';
import {fieldKey, fieldPrompt} from '../../keys.js';
import type {Outcome, View} from '../types.js';

/** `/` in a text (a step, the explanation, the patch, the info tab): the text being found, and
 * the line of the current match (the view may scroll less near the end of the text). */
export interface TextFind {
  text: string;
  editing: boolean;
  message: string | null;
  line?: number;
}

interface Findable {
  scroll: number;
  find?: TextFind | null;
}

/** A text screen's view: its lines, lower-cased, for finding. */
export interface TextView extends View {
  lines: string[];
}

export function startFind<S extends Findable>(s: S): S {
  return {...s, find: {text: '', editing: true, message: null}};
}

/** Typing the text; Enter jumps to the first match from the top of the screen. */
export function findInput<S extends Findable>(s: S, input: string, key: Key, view: TextView): Outcome<S> {
  const find = s.find!;
  const k = fieldKey(find.text, input, key);
  if ('done' in k) {
    const text = find.text.trim();
    if (k.done === 'cancel' || !text) return {screen: {...s, find: null}};
    return {screen: findMove({...s, find: {text, editing: false, message: null}}, 1, view, true)};
  }
  return k.text === find.text ? {} : {screen: {...s, find: {...find, text: k.text}}};
}

export const findPrompt = (s: Findable) =>
  s.find?.editing ? fieldPrompt('find', s.find.text) : (s.find?.message ?? null);

function lineWith(lines: string[], text: string, from: number, dir: 1 | -1): number {
  const needle = text.toLowerCase();
  for (let i = from; i >= 0 && i < lines.length; i += dir) if (lines[i]!.includes(needle)) return i;
  return -1;
}

/** Scrolls to the next (dir 1) or previous (dir -1) match, wrapping around. */
export function findMove<S extends Findable>(s: S, dir: 1 | -1, view: TextView, here = false): S {
  const find = s.find!;
  const from = here ? s.scroll : (find.line ?? s.scroll) + dir;
  let line = lineWith(view.lines, find.text, from, dir);
  let wrapped = false;
  if (line < 0) {
    line = lineWith(view.lines, find.text, dir === 1 ? 0 : Math.max(0, view.total - 1), dir);
    wrapped = line >= 0;
  }
  if (line < 0) return {...s, find: {...find, message: `"${find.text}" is not in this text`}};
  const needle = find.text.toLowerCase();
  const count = view.lines.filter(l => l.includes(needle)).length;
  // the match on screen: at the top, or lower when the text ends before a page would
  const scroll = Math.min(line, Math.max(0, view.total - view.page));
  return {
    ...s,
    scroll,
    find: {
      ...find,
      line,
      message: `"${find.text}" at line ${line + 1} (${count} line${count === 1 ? '' : 's'} match)${wrapped ? ', wrapped' : ''} · n next · N previous · Esc clears`,
    },
  };
}
