import type {SortKey} from '../store/trajectories.js';
import {SORT_KEYS} from '../store/trajectories.js';
import type {Key} from 'ink';
import {commandFor, type CommandId, type Scope} from './keymap.js';
import {editLine} from './line-edit.js';

/** Explorer state: a stack of screens over the list. Keys dispatch actions; only this reducer changes state. */

export type Tab = 'steps' | 'explanation' | 'patch' | 'info';
export const TABS: Tab[] = ['steps', 'explanation', 'patch', 'info'];

export interface Cursor {
  cursor: number;
  top: number;
}

export interface StepperScreen {
  kind: 'stepper';
  pair: number;
  row: number;
  summary: boolean;
  watches: string[];
  /** text being typed for a search or a watch expression */
  input: null | {mode: 'search' | 'watch'; text: string};
  lastSearch: string;
  message: string | null;
  /** bumped by L: the screen runs the live evaluation for this row */
  live: number;
}

export interface QuestionScreen {
  kind: 'question';
  id: string;
  agent: string;
  explanations: string;
  model: string | null;
  scroll: number;
  showKey: boolean;
  showPrompt: boolean;
  /** bumped by r / e: the screen runs the re-score / the editor */
  rescore: number;
  /** R: the re-score asks for new samples beyond the stored ones */
  fresh?: boolean;
  edit: number;
  /** a custom explanation made here replaces the shown one */
  explanationId: number | null;
  /** f: choosing a verdict, then typing a note; `flagged` is handed to the app to store */
  flag?: {phase: 'verdict' | 'note'; verdict: string | null; note: string} | null;
  flagged?: {verdict: string; note: string; seq: number} | null;
}

export type Screen =
  | {kind: 'board'; model: string | null; list: Cursor}
  | {kind: 'agentQuestions'; agent: string; explanations: string; model: string | null; list: Cursor}
  | QuestionScreen
  | ({kind: 'trajectory'; id: number; tab: Tab; steps: Cursor; scroll: number} & StageCorrection)
  | ({kind: 'step'; id: number; idx: number; scroll: number} & StageCorrection)
  | {kind: 'pta'; id: number; scroll: number; dag?: boolean}
  | {kind: 'ranking'; scroll: number}
  | {kind: 'agreement'; scroll: number}
  | {kind: 'pairs'; list: Cursor; trajectory?: number; instance?: string}
  | StepperScreen;

/** c then e/i/v/o (x: remove) on a step: the screen asks, then hands the correction to the app to store.
 * Also `/` text search on a step or a text tab (n/N between matches, Esc clears). */
export interface StageCorrection {
  find?: TextFind | null;
  /** waiting for the stage key for this step */
  stagePrompt?: number | null;
  /** bumped with each correction; the app stores it */
  correct?: {idx: number; stage: string | null; seq: number} | null;
}

export interface TextFind {
  text: string;
  editing: boolean;
  message: string | null;
  /** the line of the current match (the view may scroll less near the end of the text) */
  line?: number;
}

export function stepperScreen(pair: number, row = 0): StepperScreen {
  return {kind: 'stepper', pair, row, summary: false, watches: [], input: null, lastSearch: '', message: null, live: 0};
}

/** Where `deltalens explore` opens (deep links); each is checked against the store first. */
export type DeepLink =
  | {kind: 'pair'; pair: number}
  | {kind: 'trajectory'; trajectory: number; step?: number}
  | {kind: 'question'; question: string; agent: string; explanations: string};

/** The screen stack a deep link opens, with the screens a person would have passed on the way
 * (so Esc goes back as if they had walked there). Steps are 0-based here. */
export function linkStack(link: DeepLink): Screen[] {
  if (link.kind === 'pair') return [{kind: 'pairs', list: {cursor: 0, top: 0}}, stepperScreen(link.pair)];
  if (link.kind === 'trajectory') {
    const trajectory: Screen = {kind: 'trajectory', id: link.trajectory, tab: 'steps', steps: {cursor: link.step ?? 0, top: Math.max(0, (link.step ?? 0) - 2)}, scroll: 0};
    return link.step === undefined ? [trajectory] : [trajectory, {kind: 'step', id: link.trajectory, idx: link.step, scroll: 0}];
  }
  return [
    {kind: 'board', model: null, list: {cursor: 0, top: 0}},
    {kind: 'question', id: link.question, agent: link.agent, explanations: link.explanations, model: null, scroll: 0, showKey: true, showPrompt: false, rescore: 0, edit: 0, explanationId: null},
  ];
}

export interface State {
  list: Cursor & {filter: string; editingFilter: boolean; sort: SortKey; descending: boolean};
  stack: Screen[];
  help: boolean;
  helpScroll: number;
  quitting: boolean;
  /** bumped by y: the app copies what is under the cursor */
  copy?: number;
}

export const initialState: State = {
  list: {cursor: 0, top: 0, filter: '', editingFilter: false, sort: 'id', descending: false},
  stack: [],
  help: false,
  helpScroll: 0,
  quitting: false,
};

/** Sizes the reducer needs to clamp movement: rows in the current list/text and rows on screen. */
export interface Extent {
  total: number;
  page: number;
  /** The trajectory id at a row of the list, for Enter (read when the key is handled). */
  idAt?: (row: number) => number | undefined;
  /** Steps in the open trajectory, for next/previous step. */
  steps?: number;
  /** The pair id at a row of the traced-pairs list. */
  pairAt?: (row: number) => number | undefined;
  /** The stepper: call depth of a row, the delta's row (-1: none), and a search. */
  depthAt?: (row: number) => number;
  deltaRow?: number;
  findRow?: (text: string, from: number) => number;
  /** A text view: the next line at or after `from` (dir 1) or before it (dir -1) holding `text`, or -1. */
  findLine?: (text: string, from: number, dir: 1 | -1) => number;
  matches?: (text: string) => number;
  /** Leaderboard and questions: the row's agent / question, and the stored models. */
  agentAt?: (row: number) => {agent: string; explanations: string} | undefined;
  questionAt?: (row: number) => string | undefined;
  models?: string[];
  /** the question screen's instance (t: its traced pairs) */
  instance?: string;
  /** the model shown while a screen has chosen none (the report's default) */
  shownModel?: string | null;
}

export type Action =
  | {type: 'command'; id: CommandId; extent: Extent}
  | {type: 'key'; input: string; key: Key; extent: Extent}
  | {type: 'custom'; explanationId: number};

export function moveCursor(c: Cursor, id: CommandId, {total, page}: Extent): Cursor {
  const last = Math.max(0, total - 1);
  let cursor = c.cursor;
  if (id === 'down') cursor++;
  else if (id === 'up') cursor--;
  else if (id === 'pageDown') cursor += page;
  else if (id === 'pageUp') cursor -= page;
  else if (id === 'top') cursor = 0;
  else if (id === 'bottom') cursor = last;
  cursor = Math.min(Math.max(0, cursor), last);
  const {top} = followCursor(c, cursor, page);
  return {cursor, top: Math.max(0, Math.min(top, Math.max(0, total - page)))};
}

/** Scrolling text: the offset of the first visible line. */
export function moveScroll(scroll: number, id: CommandId, {total, page}: Extent): number {
  const max = Math.max(0, total - page);
  const next =
    id === 'down' ? scroll + 1 : id === 'up' ? scroll - 1 : id === 'pageDown' ? scroll + page : id === 'pageUp' ? scroll - page : id === 'top' ? 0 : id === 'bottom' ? max : scroll;
  return Math.min(Math.max(0, next), max);
}

const MOVES = new Set<CommandId>(['down', 'up', 'pageDown', 'pageUp', 'top', 'bottom']);
const TAB_FOR: Partial<Record<CommandId, Tab>> = {tabSteps: 'steps', tabExplanation: 'explanation', tabPatch: 'patch', tabInfo: 'info'};

export function reducer(state: State, action: Action): State {
  if (action.type === 'command') return command(state, action.id, action.extent);
  if (action.type === 'custom') {
    const top = state.stack.at(-1);
    return top?.kind === 'question' ? {...state, stack: [...state.stack.slice(0, -1), {...top, explanationId: action.explanationId}]} : state;
  }
  const {input, key, extent} = action;
  if (state.list.editingFilter && !state.stack.length && !state.help) return filterKey(state, input, key);
  const top = state.stack.at(-1);
  if (top?.kind === 'stepper' && top.input && !state.help) return stepperInput(state, top, input, key, extent);
  if (top?.kind === 'question' && top.flag && !state.help) return flagKey(state, top, input, key);
  if ((top?.kind === 'trajectory' || top?.kind === 'step') && top.stagePrompt !== undefined && top.stagePrompt !== null && !state.help) return stageKey(state, top, input, key);
  if ((top?.kind === 'trajectory' || top?.kind === 'step') && top.find?.editing && !state.help) return findKey(state, top, input, key, extent);
  // Esc with a search kept clears it before going back
  if ((top?.kind === 'trajectory' || top?.kind === 'step') && top.find && key.escape && !state.help) return {...state, stack: [...state.stack.slice(0, -1), {...top, find: null}]};
  const scope: Scope = top?.kind ?? 'list';
  const id = commandFor(scope, input, key);
  // Esc on the list clears a kept filter before anything else.
  if (id === 'back' && !state.stack.length && !state.help && state.list.filter) {
    return {...state, list: {...state.list, filter: '', cursor: 0, top: 0}};
  }
  return id ? command(state, id, extent) : state;
}

function filterKey(state: State, input: string, key: Key): State {
  const list = state.list;
  if (key.ctrl && input === 'c') return {...state, quitting: true};
  if (key.return) return {...state, list: {...list, editingFilter: false}};
  if (key.escape) return {...state, list: {...list, editingFilter: false, filter: '', cursor: 0, top: 0}};
  const filter = editLine(list.filter, input, key);
  return filter === list.filter ? state : {...state, list: {...list, filter, cursor: 0, top: 0}};
}

function stepperInput(state: State, screen: StepperScreen, input: string, key: Key, extent: Extent): State {
  const replace = (next: StepperScreen): State => ({...state, stack: [...state.stack.slice(0, -1), next]});
  const edit = screen.input!;
  if (key.ctrl && input === 'c') return {...state, quitting: true};
  if (key.escape) return replace({...screen, input: null});
  if (key.return) {
    const text = edit.text.trim();
    if (!text) return replace({...screen, input: null});
    if (edit.mode === 'watch') return replace({...screen, input: null, watches: [...screen.watches.filter(w => w !== text), text], message: null});
    return replace({...search(screen, text, extent), input: null, lastSearch: text});
  }
  const text = editLine(edit.text, input, key);
  return text === edit.text ? state : replace({...screen, input: {...edit, text}});
}

/** Typing the text of a `/` search in a text view; Enter jumps to the first match from here. */
function findKey(state: State, screen: Extract<Screen, {kind: 'trajectory' | 'step'}>, input: string, key: Key, extent: Extent): State {
  const replace = (next: Screen): State => ({...state, stack: [...state.stack.slice(0, -1), next]});
  const find = screen.find!;
  if (key.ctrl && input === 'c') return {...state, quitting: true};
  if (key.escape) return replace({...screen, find: null});
  if (key.return) {
    const text = find.text.trim();
    if (!text) return replace({...screen, find: null});
    return replace(findMove({...screen, find: {text, editing: false, message: null}}, 1, extent, true));
  }
  const text = editLine(find.text, input, key);
  return text === find.text ? state : replace({...screen, find: {...find, text}});
}

/** Scrolls a text view to the next (dir 1) or previous (dir -1) match, wrapping around. */
function findMove<S extends Extract<Screen, {kind: 'trajectory' | 'step'}>>(screen: S, dir: 1 | -1, extent: Extent, here = false): S {
  const find = screen.find!;
  const at = extent.findLine;
  if (!at) return screen;
  const from = here ? screen.scroll : (find.line ?? screen.scroll) + dir;
  let line = at(find.text, from, dir);
  let wrapped = false;
  if (line < 0) {
    line = at(find.text, dir === 1 ? 0 : Math.max(0, extent.total - 1), dir);
    wrapped = line >= 0;
  }
  if (line < 0) return {...screen, find: {...find, message: `"${find.text}" is not in this text`}};
  const count = extent.matches?.(find.text) ?? 0;
  // the match on screen: at the top, or lower when the text ends before a page would
  const scroll = Math.min(line, Math.max(0, extent.total - extent.page));
  return {...screen, scroll, find: {...find, line, message: `"${find.text}" at line ${line + 1}${count ? ` (${count} line${count === 1 ? '' : 's'} match)` : ''}${wrapped ? ', wrapped' : ''} · n next · N previous · Esc clears`}};
}

function stageKey(state: State, screen: Extract<Screen, {kind: 'trajectory' | 'step'}>, input: string, key: Key): State {
  const replace = (next: Screen): State => ({...state, stack: [...state.stack.slice(0, -1), next]});
  if (key.ctrl && input === 'c') return {...state, quitting: true};
  if (key.escape || key.backspace) return replace({...screen, stagePrompt: null});
  const idx = screen.stagePrompt!;
  const letter = input.toUpperCase();
  const stage = ['E', 'I', 'V', 'O'].includes(letter) ? letter : letter === 'X' ? null : undefined;
  if (stage === undefined) return state;
  return replace({...screen, stagePrompt: null, correct: {idx, stage, seq: (screen.correct?.seq ?? 0) + 1}});
}

/** The verdicts f offers, in the order of their number keys. */
export const FLAG_KEYS = ['valid', 'ambiguous', 'wrong-key', 'guessable', 'leaks-answer', 'broken-context'] as const;

function flagKey(state: State, screen: QuestionScreen, input: string, key: Key): State {
  const replace = (next: Screen): State => ({...state, stack: [...state.stack.slice(0, -1), next]});
  const flag = screen.flag!;
  if (key.ctrl && input === 'c') return {...state, quitting: true};
  if (flag.phase === 'verdict') {
    if (key.escape || key.backspace) return replace({...screen, flag: null});
    const verdict = FLAG_KEYS[Number(input) - 1];
    return verdict ? replace({...screen, flag: {phase: 'note', verdict, note: ''}}) : state;
  }
  if (key.escape) return replace({...screen, flag: null});
  if (key.return) return replace({...screen, flag: null, flagged: {verdict: flag.verdict!, note: flag.note.trim(), seq: (screen.flagged?.seq ?? 0) + 1}});
  const note = editLine(flag.note, input, key);
  return note === flag.note ? state : replace({...screen, flag: {...flag, note}});
}

function search(screen: StepperScreen, text: string, extent: Extent): StepperScreen {
  const found = extent.findRow?.(text, screen.row + 1) ?? -1;
  const wrapped = found < 0 ? (extent.findRow?.(text, 0) ?? -1) : found;
  if (wrapped < 0) return {...screen, message: `"${text}" is not named in any row`};
  return {...screen, row: wrapped, message: found < 0 ? `"${text}": wrapped to the start` : null};
}

/** Debugger-style movement over the aligned rows (depth = call depth). */
function stepperMove(screen: StepperScreen, id: CommandId, extent: Extent): StepperScreen {
  const last = Math.max(0, extent.total - 1);
  const depth = extent.depthAt ?? (() => 0);
  const here = depth(screen.row);
  const find = (from: number, dir: 1 | -1, ok: (d: number) => boolean): number => {
    for (let r = from; r >= 0 && r <= last; r += dir) if (ok(depth(r))) return r;
    return -1;
  };
  let row = screen.row;
  let message: string | null = null;
  if (id === 'stepInto' || id === 'down') row = Math.min(last, row + 1);
  else if (id === 'up') row = Math.max(0, row - 1);
  else if (id === 'pageDown') row = Math.min(last, row + extent.page);
  else if (id === 'pageUp') row = Math.max(0, row - extent.page);
  else if (id === 'top') row = 0;
  else if (id === 'bottom') row = last;
  else if (id === 'stepOver') {
    const r = find(row + 1, 1, d => d <= here);
    if (r < 0) message = 'the end of the trace';
    else row = r;
  } else if (id === 'stepBack') {
    const r = find(row - 1, -1, d => d <= here);
    if (r < 0) message = 'the start of the trace';
    else row = r;
  } else if (id === 'stepOut') {
    const r = find(row + 1, 1, d => d < here);
    if (r < 0) message = 'no caller to return to';
    else row = r;
  } else if (id === 'toDelta') {
    if (extent.deltaRow === undefined || extent.deltaRow < 0) message = 'no delta point in this pair (see D)';
    else row = extent.deltaRow;
  }
  return {...screen, row, message};
}

function command(state: State, id: CommandId, extent: Extent): State {
  if (id === 'quitNow') return {...state, quitting: true};
  // q goes back one screen (closes help); it quits only from the top, as in k9s and lazygit
  if (id === 'quit') return state.help ? {...state, help: false} : state.stack.length ? {...state, stack: state.stack.slice(0, -1)} : {...state, quitting: true};
  if (id === 'help') return {...state, help: !state.help, helpScroll: 0};
  if (id === 'copy' && !state.help) return {...state, copy: (state.copy ?? 0) + 1};
  if (state.help) {
    if (MOVES.has(id)) return {...state, helpScroll: moveScroll(state.helpScroll, id, extent)};
    return id === 'back' ? {...state, help: false} : state;
  }
  const screen = state.stack.at(-1);
  if (id === 'back') return screen ? {...state, stack: state.stack.slice(0, -1)} : state;

  if (!screen) {
    if (id === 'traces') return {...state, stack: [{kind: 'pairs', list: {cursor: 0, top: 0}}]};
    if (id === 'leaderboard') return {...state, stack: [{kind: 'board', model: null, list: {cursor: 0, top: 0}}]};
    if (id === 'rankings') return {...state, stack: [{kind: 'ranking', scroll: 0}]};
    if (id === 'agreement') return {...state, stack: [{kind: 'agreement', scroll: 0}]};
    if (MOVES.has(id)) return {...state, list: {...state.list, ...moveCursor(state.list, id, extent)}};
    const selected = id === 'open' ? extent.idAt?.(state.list.cursor) : undefined;
    if (selected !== undefined) {
      return {...state, stack: [{kind: 'trajectory', id: selected, tab: 'steps', steps: {cursor: 0, top: 0}, scroll: 0}]};
    }
    if (id === 'filter') return {...state, list: {...state.list, editingFilter: true}};
    if (id === 'sort') {
      const next = SORT_KEYS[(SORT_KEYS.indexOf(state.list.sort) + 1) % SORT_KEYS.length]!;
      return {...state, list: {...state.list, sort: next, cursor: 0, top: 0}};
    }
    if (id === 'reverse') return {...state, list: {...state.list, descending: !state.list.descending, cursor: 0, top: 0}};
    return state;
  }

  const replace = (next: Screen): State => ({...state, stack: [...state.stack.slice(0, -1), next]});
  const nextModel = (current: string | null) => {
    const models = extent.models ?? [];
    if (!models.length) return current;
    // from the model on screen: a screen that chose none shows the report's default
    const i = models.indexOf(current ?? extent.shownModel ?? models[0]!);
    return models[(i + 1) % models.length]!;
  };
  if (screen.kind === 'board') {
    if (MOVES.has(id)) return replace({...screen, list: moveCursor(screen.list, id, extent)});
    if (id === 'nextModel') return replace({...screen, model: nextModel(screen.model), list: {cursor: 0, top: 0}});
    const a = id === 'open' ? extent.agentAt?.(screen.list.cursor) : undefined;
    return a ? {...state, stack: [...state.stack, {kind: 'agentQuestions', ...a, model: screen.model, list: {cursor: 0, top: 0}}]} : state;
  }
  if (screen.kind === 'agentQuestions') {
    if (MOVES.has(id)) return replace({...screen, list: moveCursor(screen.list, id, extent)});
    const q = id === 'open' ? extent.questionAt?.(screen.list.cursor) : undefined;
    return q
      ? {
          ...state,
          stack: [
            ...state.stack,
            {kind: 'question', id: q, agent: screen.agent, explanations: screen.explanations, model: screen.model, scroll: 0, showKey: true, showPrompt: false, rescore: 0, edit: 0, explanationId: null},
          ],
        }
      : state;
  }
  if (screen.kind === 'question') {
    if (MOVES.has(id)) return replace({...screen, scroll: moveScroll(screen.scroll, id, extent)});
    if (id === 'toggleKey') return replace({...screen, showKey: !screen.showKey});
    if (id === 'togglePrompt') return replace({...screen, showPrompt: !screen.showPrompt, scroll: 0});
    if (id === 'traces' && extent.instance) return {...state, stack: [...state.stack, {kind: 'pairs', list: {cursor: 0, top: 0}, instance: extent.instance}]};
    if (id === 'rescore') return replace({...screen, rescore: screen.rescore + 1, fresh: false});
    if (id === 'rescoreFresh') return replace({...screen, rescore: screen.rescore + 1, fresh: true});
    if (id === 'editExplanation') return replace({...screen, edit: screen.edit + 1});
    if (id === 'flagQuestion') return replace({...screen, flag: {phase: 'verdict', verdict: null, note: ''}});
    if (id === 'nextModel') return replace({...screen, model: nextModel(screen.model)});
    return state;
  }
  if (screen.kind === 'pta' && id === 'dagView') return replace({...screen, dag: !screen.dag, scroll: 0});
  if (screen.kind === 'pta' || screen.kind === 'ranking' || screen.kind === 'agreement') {
    return MOVES.has(id) ? replace({...screen, scroll: moveScroll(screen.scroll, id, extent)}) : state;
  }
  if (screen.kind === 'pairs') {
    if (MOVES.has(id)) return replace({...screen, list: moveCursor(screen.list, id, extent)});
    const pair = id === 'open' ? extent.pairAt?.(screen.list.cursor) : undefined;
    return pair === undefined ? state : {...state, stack: [...state.stack, stepperScreen(pair)]};
  }
  if (screen.kind === 'stepper') {
    if (id === 'deltaSummary') return replace({...screen, summary: !screen.summary});
    if (id === 'search') return replace({...screen, input: {mode: 'search', text: ''}, message: null});
    if (id === 'watch') return replace({...screen, input: {mode: 'watch', text: ''}, message: null});
    if (id === 'clearWatches') return replace({...screen, watches: [], message: null});
    if (id === 'liveWatch') {
      return replace(screen.watches.length ? {...screen, live: screen.live + 1, message: null} : {...screen, message: 'no watch expressions: add one with x'});
    }
    return replace(stepperMove(screen, id, extent));
  }
  const tab = TAB_FOR[id];
  if (id === 'reference') return {...state, stack: [...state.stack, {kind: 'pta', id: screen.id, scroll: 0}]};
  if (id === 'correctStage') {
    const idx = screen.kind === 'step' ? screen.idx : screen.tab === 'steps' && extent.total > 0 ? screen.steps.cursor : null;
    return idx === null ? state : replace({...screen, stagePrompt: idx});
  }
  if ((screen.kind === 'step' || (screen.kind === 'trajectory' && screen.tab !== 'steps')) && (id === 'findText' || ((id === 'findNext' || id === 'findPrev') && screen.find))) {
    if (id === 'findText') return replace({...screen, find: {text: '', editing: true, message: null}});
    return replace(findMove(screen, id === 'findNext' ? 1 : -1, extent));
  }
  if (screen.kind === 'trajectory') {
    if (id === 'traces') return {...state, stack: [...state.stack, {kind: 'pairs', list: {cursor: 0, top: 0}, trajectory: screen.id}]};
    if (tab) return replace({...screen, tab, scroll: 0, find: null});
    if (id === 'nextTab') return replace({...screen, tab: TABS[(TABS.indexOf(screen.tab) + 1) % TABS.length]!, scroll: 0, find: null});
    if (id === 'prevTab') return replace({...screen, tab: TABS[(TABS.indexOf(screen.tab) + TABS.length - 1) % TABS.length]!, scroll: 0, find: null});
    if (screen.tab === 'steps') {
      if (MOVES.has(id)) return replace({...screen, steps: moveCursor(screen.steps, id, extent)});
      if (id === 'open' && extent.total > 0) {
        return {...state, stack: [...state.stack, {kind: 'step', id: screen.id, idx: screen.steps.cursor, scroll: 0}]};
      }
      return state;
    }
    if (MOVES.has(id)) return replace({...screen, scroll: moveScroll(screen.scroll, id, extent)});
    return state;
  }

  // step detail
  if (tab) {
    const below = state.stack.slice(0, -1);
    const parent = below.at(-1);
    if (parent?.kind === 'trajectory') return {...state, stack: [...below.slice(0, -1), {...parent, tab, scroll: 0}]};
    return state;
  }
  if (MOVES.has(id)) return replace({...screen, scroll: moveScroll(screen.scroll, id, extent)});
  if (id === 'nextStep' || id === 'prevStep' || id === 'findNext') {
    // n without a search is the next step
    if (id === 'findNext') id = 'nextStep';
    const parent = state.stack.at(-2);
    const count = extent.steps ?? 0;
    const idx = Math.min(Math.max(0, screen.idx + (id === 'nextStep' ? 1 : -1)), Math.max(0, count - 1));
    const stack = [...state.stack.slice(0, -1), {...screen, idx, scroll: 0, find: null}];
    // Keep the timeline's cursor on the step being read, so Esc lands where you are.
    if (parent?.kind === 'trajectory') {
      stack[stack.length - 2] = {...parent, steps: followCursor(parent.steps, idx, extent.page)};
    }
    return {...state, stack};
  }
  return state;
}

/** Moves the window just enough that `cursor` is on screen. */
function followCursor(c: Cursor, cursor: number, page: number): Cursor {
  let top = c.top;
  if (cursor < top) top = cursor;
  if (cursor >= top + page) top = cursor - page + 1;
  return {cursor, top};
}
