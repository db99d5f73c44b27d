import {useInput, useStdin, type Key} from 'ink';
import {useEffect, useReducer, useRef} from 'react';
import {editLine} from './line-edit.js';
import {moveScroll, type Size} from './nav.js';

/**
 * The one key system of the explorer, annotate and adjudicate. A binding is declared once — by
 * the screen it belongs to, or here when it works everywhere — and that declaration is what
 * handles the key, what the status bar and the prompts show, what the help overlay lists and
 * what readme.md's key table must contain (a test compares them).
 */

/** Where a binding works: a screen, a sub-mode of one (a prompt waiting for a letter, a text
 * field), or 'global' (every screen of the explorer). */
export type Scope =
  | 'global'
  | 'instance'
  | 'list'
  | 'trajectory'
  | 'step'
  | 'pairs'
  | 'stepper'
  | 'board'
  | 'agentQuestions'
  | 'question'
  | 'pta'
  | 'ranking'
  | 'agreement'
  | 'reasoning'
  | 'audit'
  | 'textField'
  | 'stagePrompt'
  | 'picker'
  | 'annotate'
  | 'adjudicate';

export interface Binding {
  id: string;
  keys: string;
  description: string;
  scopes: Scope[];
  /** Shown in the status bar (or the prompt) of these scopes, as `keys label`. */
  hint?: Scope[];
  label?: string;
  match: (input: string, key: Key) => boolean;
}

export const ch = (c: string) => (input: string) => input === c;

/** The screens opened from the trajectory list: where Esc (back) is hinted, and ? beside the list's. */
const SCREENS_BELOW_THE_LIST: Scope[] = [
  'trajectory',
  'step',
  'pairs',
  'stepper',
  'board',
  'agentQuestions',
  'question',
  'pta',
  'ranking',
  'agreement',
  'reasoning',
  'audit',
];

/** Keys that work on every screen of the explorer; help lists them once, under "Everywhere". */
export const GLOBAL_BINDINGS: Binding[] = [
  {
    id: 'help',
    label: 'help',
    keys: '?',
    description: 'show or hide this help',
    scopes: ['global'],
    hint: ['list', ...SCREENS_BELOW_THE_LIST],
    match: ch('?'),
  },
  {
    id: 'quitNow',
    keys: 'Ctrl+C',
    description: 'quit at once, from any screen (while an audit runs: stop it first, keeping what it has done)',
    scopes: ['global'],
    match: (input, key) => key.ctrl && input === 'c',
  },
  {
    id: 'quit',
    label: 'quit',
    keys: 'q',
    description: 'back one screen; quit from the trajectory list',
    scopes: ['global'],
    hint: ['list'],
    match: ch('q'),
  },
  {
    id: 'back',
    label: 'back',
    keys: 'Esc, Backspace',
    description: 'back to the previous screen (closes help, clears a filter or a find first)',
    scopes: ['global'],
    hint: SCREENS_BELOW_THE_LIST,
    match: (_, key) => key.escape || key.backspace || key.delete,
  },
  {
    id: 'down',
    keys: 'j, ↓',
    description: 'next row / scroll down (the stepper: next aligned row, into calls)',
    scopes: ['global'],
    match: (input, key) => input === 'j' || key.downArrow,
  },
  {
    id: 'up',
    keys: 'k, ↑',
    description: 'previous row / scroll up',
    scopes: ['global'],
    match: (input, key) => input === 'k' || key.upArrow,
  },
  {
    id: 'pageDown',
    keys: 'PgDn, Ctrl+F, Space',
    description: 'one page down',
    scopes: ['global'],
    match: (input, key) => key.pageDown || (key.ctrl && input === 'f') || input === ' ',
  },
  {
    id: 'pageUp',
    keys: 'PgUp, Ctrl+B',
    description: 'one page up',
    scopes: ['global'],
    match: (input, key) => key.pageUp || (key.ctrl && input === 'b'),
  },
  {
    id: 'top',
    keys: 'g, Home',
    description: 'first row / top',
    scopes: ['global'],
    match: (input, key) => input === 'g' || key.home,
  },
  {
    id: 'bottom',
    keys: 'G, End',
    description: 'last row / bottom',
    scopes: ['global'],
    match: (input, key) => input === 'G' || key.end,
  },
  {
    id: 'copy',
    label: 'copy',
    keys: 'y',
    description:
      "copy what is under the cursor — a run's file, a step's command, a pair's steps command, a file:line, an agent or a question id — to the clipboard (OSC 52; the status line shows it too)",
    scopes: ['global'],
    match: ch('y'),
  },
];

/** A line being typed (a filter, a find, a watch, a note). The typed characters go to editLine. */
export const TEXT_FIELD_BINDINGS: Binding[] = [
  {
    id: 'accept',
    label: 'keep',
    keys: 'Enter',
    description: 'keep what was typed (find, add, save)',
    scopes: ['textField'],
    hint: ['textField'],
    match: (_, key) => key.return,
  },
  {
    id: 'cancel',
    label: 'cancel',
    keys: 'Esc',
    description: 'cancel the line being typed',
    scopes: ['textField'],
    hint: ['textField'],
    match: (_, key) => key.escape,
  },
];

export const MOVES = new Set(['down', 'up', 'pageDown', 'pageUp', 'top', 'bottom']);

/** A text screen's movement: the scroll after a move key, or null for any other command. */
export function scrolled<S extends {scroll: number}>(s: S, id: string, view: Size): {screen: S} | null {
  return MOVES.has(id) ? {screen: {...s, scroll: moveScroll(s.scroll, id, view)}} : null;
}

/** The first binding of `scopes` (in that order) that matches the key. */
export function bindingFor(bindings: Binding[], scopes: Scope[], input: string, key: Key): Binding | null {
  for (const scope of scopes) {
    const b = bindings.find(x => x.scopes.includes(scope) && x.match(input, key));
    if (b) return b;
  }
  return null;
}

/** `keys label` for each binding hinted in a scope: the status bar, or a prompt's choices. */
export function hintText(bindings: Binding[], scope: Scope, sep = '  '): string {
  return bindings
    .filter(b => b.hint?.includes(scope))
    .map(b => `${b.keys.split(',')[0]} ${b.label ?? b.id}`)
    .join(sep);
}

/**
 * Keys typed faster than a render (or sent by tmux) arrive as one chunk ("4G", "jj\r"). The one
 * splitter: a chunk of printable characters becomes one key per character (a "\r" in it is
 * Enter); escape sequences and chords stay whole.
 */
function splitKeys(input: string, key: Key): {input: string; key: Key}[] {
  if (input.length > 1 && !key.ctrl && !key.meta && !/\x1b/.test(input)) {
    return [...input].map(c => ({input: c === '\r' ? '' : c, key: {...key, return: c === '\r'}}));
  }
  return [{input, key}];
}

/**
 * Keys handled one per render: each key sees what the key before it left on screen (after "4"
 * switches to the Info tab, "G" goes to the end of the Info text, not the previous tab's).
 * `handle` returns false when the key changed nothing, so no render would take the next one.
 */
export function useKeyQueue(handle: (input: string, key: Key) => void): void {
  const {isRawModeSupported} = useStdin();
  const pending = useRef<{input: string; key: Key}[]>([]);
  // a key was handled and its render has not happened yet
  const unrendered = useRef(false);
  const [, rerender] = useReducer((x: number) => x + 1, 0);
  const send = (k: {input: string; key: Key}) => {
    unrendered.current = true;
    handle(k.input, k.key);
    // a key that changes nothing renders nothing: ask for the render that takes the next one
    rerender();
  };
  useEffect(() => {
    unrendered.current = false;
    if (!pending.current.length) return;
    // the next key in a task of its own: a long chunk (a paste, 300 keys from a script) is not
    // one chain of nested renders, which React stops at 50
    const next = setImmediate(() => {
      if (!unrendered.current && pending.current.length) send(pending.current.shift()!);
    });
    return () => clearImmediate(next);
  });
  useInput(
    (input, key) => {
      const keys = splitKeys(input, key);
      pending.current.push(...keys);
      if (!unrendered.current && pending.current.length === keys.length) send(pending.current.shift()!);
    },
    {isActive: Boolean(isRawModeSupported)},
  );
}

/** A key in a text field: Enter keeps the text, Esc cancels, anything else edits the line. */
export function fieldKey(text: string, input: string, key: Key): {done: 'accept' | 'cancel'} | {text: string} {
  const b = bindingFor(TEXT_FIELD_BINDINGS, ['textField'], input, key);
  if (b) return {done: b.id as 'accept' | 'cancel'};
  return {text: editLine(text, input, key)};
}

/** The status line while a text field is open: what is typed, and its keys. */
export function fieldPrompt(label: string, text: string): string {
  return `${label}: ${text}▏  ${hintText(TEXT_FIELD_BINDINGS, 'textField', ' · ')}`;
}

/** The key that opens an instance's screen from a run, a question, a pair or the list. */
export const INSTANCE_BINDING: Binding = {
  id: 'instance',
  label: 'instance',
  keys: 'I',
  description:
    'the instance: its record (base commit, tests, problem statement, gold and test patches), runs, traced pairs and questions',
  scopes: ['trajectory', 'question', 'pairs', 'list'],
  hint: ['trajectory'],
  match: ch('I'),
};
