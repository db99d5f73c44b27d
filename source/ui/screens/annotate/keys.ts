import type {Key} from 'ink';
import {bindingFor, ch, fieldKey, type Binding, type Scope} from '../../keys.js';

/**
 * Labelling (ExplainBench §5.4): one item at a time, answered with the choice letters (two for
 * end-to-end effect: before, after), then an optional one-line rationale. A label is stored the
 * moment its letters are complete — there is no save step to forget.
 */

const both: Scope[] = ['annotate', 'adjudicate'];

/** Keys of annotate (and the ones adjudicate shares); the answer letters come last, so a key
 * bound here is never read as a choice. */
export const ANNOTATE_BINDINGS: Binding[] = [
  {
    id: 'quitNow',
    keys: 'Ctrl+C',
    description: 'quit at once (every label is already stored)',
    scopes: both,
    match: (input, key) => key.ctrl && input === 'c',
  },
  {
    id: 'quit',
    label: 'quit',
    keys: 'q',
    description: 'quit (every label is already stored)',
    scopes: both,
    hint: both,
    match: ch('q'),
  },
  {
    id: 'undo',
    label: 'undo last',
    keys: 'u',
    description: 'undo your last label of this session (it is deleted) and go back to its item',
    scopes: ['annotate'],
    hint: ['annotate'],
    match: ch('u'),
  },
  {
    id: 'down',
    keys: 'j, ↓',
    description: 'scroll the reading (explanation, context) down a line',
    scopes: both,
    match: (input, key) => input === 'j' || key.downArrow,
  },
  {
    id: 'up',
    keys: 'k, ↑',
    description: 'scroll the reading up a line',
    scopes: both,
    match: (input, key) => input === 'k' || key.upArrow,
  },
  {
    id: 'pageDown',
    label: 'scroll',
    keys: 'PgDn, Space',
    description: 'scroll the reading down a page (the question stays on screen)',
    scopes: both,
    hint: both,
    match: (input, key) => key.pageDown || input === ' ',
  },
  {
    id: 'pageUp',
    keys: 'PgUp',
    description: 'scroll the reading up a page',
    scopes: both,
    match: (_, key) => key.pageUp,
  },
  {
    id: 'top',
    keys: 'g, Home',
    description: 'the top of the reading (Home only, when an item has a choice G)',
    scopes: both,
    match: (input, key) => input === 'g' || key.home,
  },
  {
    id: 'bottom',
    keys: 'G, End',
    description: 'the end of the reading (End only, when an item has a choice G)',
    scopes: both,
    match: (input, key) => input === 'G' || key.end,
  },
  {
    id: 'restart',
    label: 'restart',
    keys: 'Esc, Backspace',
    description: 'forget the letters typed for this item',
    scopes: both,
    match: (_, key) => key.escape || key.backspace || key.delete,
  },
];

interface AnnotateState {
  index: number;
  /** letters typed so far for this item */
  letters: string[];
  phase: 'answer' | 'note';
  note: string;
  /** every label of this session, for its rationale and for undo */
  saved: {id: number; index: number; letters: string[]}[];
  startedAt: number;
  scroll: number;
  message: string | null;
  quitting: boolean;
}

export const startAnnotate = (now: number): AnnotateState => ({
  index: 0,
  letters: [],
  phase: 'answer',
  note: '',
  saved: [],
  startedAt: now,
  scroll: 0,
  message: null,
  quitting: false,
});

/** What the key asks of the store; the app runs it and records a new label's id. */
type AnnotateIntent =
  | {kind: 'save'; index: number; letters: string[]; seconds: number}
  | {kind: 'rationale'; id: number; text: string}
  | {kind: 'remove'; id: number};

export interface ItemContext {
  /** the current item's choice letters (null: no item) */
  choices: string[] | null;
  /** letters an answer takes: 2 for end-to-end effect */
  need: number;
  now: number;
  page: number;
}

/** Scrolling, restarting and the answer letters, shared by annotate and adjudicate. */
export function itemKey<S extends {scroll: number; letters: string[]; message: string | null}>(
  s: S,
  b: Binding | null,
  input: string,
  ctx: ItemContext,
): {state: S; complete: boolean} {
  const same = {state: s, complete: false};
  const letter = input.toUpperCase();
  const isLetter = /^[a-z]$/i.test(input);
  const isChoice = isLetter && Boolean(ctx.choices?.includes(letter));
  let id = b?.id ?? null;
  // g / G are choices on an item that has a G (Home / End still scroll)
  if (isChoice && (id === 'top' || id === 'bottom')) id = 'answer';
  if (!id && isLetter) id = 'answer';
  if (id === 'down' || id === 'up')
    return {state: {...s, scroll: Math.max(0, s.scroll + (id === 'down' ? 1 : -1))}, complete: false};
  if (id === 'pageDown' || id === 'pageUp')
    return {state: {...s, scroll: Math.max(0, s.scroll + (id === 'pageDown' ? ctx.page : -ctx.page))}, complete: false};
  // the end is clamped to the last line when drawn
  if (id === 'top' || id === 'bottom')
    return {state: {...s, scroll: id === 'top' ? 0 : Number.MAX_SAFE_INTEGER}, complete: false};
  if (id === 'restart') return {state: {...s, letters: []}, complete: false};
  if (!ctx.choices || (id && id !== 'answer') || !input) return same;
  if (!isChoice)
    return {state: {...s, message: `"${input}" is not a choice here (${ctx.choices.join(', ')})`}, complete: false};
  const letters = [...s.letters, letter];
  return {state: {...s, letters, message: null}, complete: letters.length >= ctx.need};
}

export function reduceAnnotate(
  s: AnnotateState,
  input: string,
  key: Key,
  ctx: ItemContext,
): {state: AnnotateState; intents: AnnotateIntent[]} {
  const none = {state: s, intents: []};
  if (key.ctrl && input === 'c') return {state: {...s, quitting: true}, intents: []};
  if (s.phase === 'note') {
    const k = fieldKey(s.note, input, key);
    if (!('done' in k)) return {state: {...s, note: k.text}, intents: []};
    const last = s.saved.at(-1)!;
    const note = k.done === 'accept' ? s.note.trim() : '';
    return {
      state: {
        ...s,
        message: `saved ${last.letters.join(' → ')}${note ? ' with its rationale' : ''}`,
        phase: 'answer',
        note: '',
        index: s.index + 1,
        letters: [],
        scroll: 0,
        startedAt: ctx.now,
      },
      intents: note ? [{kind: 'rationale', id: last.id, text: note}] : [],
    };
  }
  const b = bindingFor(ANNOTATE_BINDINGS, ['annotate'], input, key);
  if (b?.id === 'quit' || b?.id === 'quitNow') return {state: {...s, quitting: true}, intents: []};
  if (b?.id === 'undo') {
    const last = s.saved.at(-1);
    if (!last) return {state: {...s, message: 'nothing to undo in this session'}, intents: []};
    return {
      state: {
        ...s,
        saved: s.saved.slice(0, -1),
        index: last.index,
        letters: [],
        scroll: 0,
        startedAt: ctx.now,
        message: `undone: the label ${last.letters.join(' → ')} on this item is deleted`,
      },
      intents: [{kind: 'remove', id: last.id}],
    };
  }
  const {state, complete} = itemKey(s, b, input, ctx);
  if (!complete) return state === s ? none : {state, intents: []};
  return {
    state: {...state, phase: 'note', message: null},
    intents: [{kind: 'save', index: s.index, letters: state.letters, seconds: (ctx.now - s.startedAt) / 1000}],
  };
}

/** The status line: what to press now. */
export function annotatePrompt(
  s: AnnotateState,
  o: {total: number; choices: string[] | null; need: number; hints: string},
): string {
  if (!o.choices) {
    return o.total === 0
      ? 'No items in this queue: nothing matches its --queue, --type and --agent (or no explanation has a question yet). q quits.'
      : `All ${o.total} items of this queue are labelled (${s.saved.length} in this session). q quits.`;
  }
  if (s.phase === 'note')
    return `saved ${s.letters.join(' → ')}. Rationale (one line; Enter keeps it, Esc skips): ${s.note}▏`;
  if (o.need === 2)
    return `Letter for BEFORE the patch${s.letters[0] ? `: ${s.letters[0]} · now AFTER` : ''} (${o.choices.join(' ')}) · Esc restart · ${o.hints}`;
  return `Press the letter of your answer (${o.choices.join(' ')}) · ${o.hints}`;
}
