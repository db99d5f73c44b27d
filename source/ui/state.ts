import type {Key} from 'ink';
import type {Result} from './intents.js';
import type {Intent} from './screens/types.js';
import {bindingFor, GLOBAL_BINDINGS, MOVES} from './keys.js';
import {moveScroll, START, type Size} from './nav.js';
import {defOf, type Screen} from './screens/index.js';
import {listScreen} from './screens/list/keys.js';
import {questionScreen} from './screens/question/keys.js';
import {stepperScreen} from './screens/stepper/keys.js';
import {trajectoryScreen} from './screens/trajectory/keys.js';
import {pickerKey} from './screens/picker.js';
import type {Outcome, Picker, View} from './screens/types.js';

/**
 * The explorer's state: a stack of screens (the trajectory list at the bottom), help, an open
 * picker, the status line. Only `reduce` changes it; what a key asks beyond the state (store,
 * model, editor, clipboard) comes back from it as intents for the command runner.
 */
interface State {
  stack: Screen[];
  help: boolean;
  helpScroll: number;
  picker: (Picker & {uid: number; index: number}) | null;
  quitting: boolean;
  /** long jobs the explorer started (audits) and still running: Ctrl+C stops them first, a second Ctrl+C quits */
  job: {label: string; running: number; stopping: boolean} | null;
  /** the last status message and the screen it belongs to */
  status: {uid: number; text: string} | null;
  /** bumped when stored data changed */
  version: number;
  nextUid: number;
}

/** The state a stack opens on: the list is put at the bottom if it is not there, and every
 * screen gets its uid. */
export function initialState(stack: Screen[] = []): State {
  const screens = stack[0]?.kind === 'list' ? stack : [listScreen(), ...stack];
  return {
    stack: screens.map((s, i) => ({...s, uid: i + 1})),
    help: false,
    helpScroll: 0,
    picker: null,
    quitting: false,
    job: null,
    status: null,
    version: 0,
    nextUid: screens.length + 1,
  };
}

/** Where `deltalens explore` opens (deep links); each is checked against the store first. */
export type DeepLink =
  | {kind: 'pair'; pair: number /** its row in the pairs list under it */; index?: number}
  | {kind: 'trajectory'; trajectory: number; step?: number}
  | {kind: 'question'; question: string; agent: string; explanations: string}
  | {kind: 'instance'; instance: string};

/** The screens a deep link opens, with those a person would have passed on the way (so Esc goes
 * back as if they had walked there). Steps are 0-based here. */
export function linkStack(link: DeepLink): Screen[] {
  // Esc from the stepper lands on the pairs list with this pair selected
  if (link.kind === 'pair')
    return [
      {kind: 'pairs', list: link.index ? {cursor: link.index, top: Math.max(0, link.index - 3)} : START},
      stepperScreen(link.pair),
    ];
  if (link.kind === 'instance') return [{kind: 'instance', id: link.instance, scroll: 0}];
  if (link.kind === 'trajectory') {
    const t = trajectoryScreen(link.trajectory, link.step ?? 0);
    return link.step === undefined ? [t] : [t, {kind: 'step', id: link.trajectory, idx: link.step, scroll: 0}];
  }
  return [{kind: 'board', model: null, list: START}, questionScreen(link.question, link.agent, link.explanations)];
}

export type Action = {type: 'key'; input: string; key: Key; view: View | null; help: Size} | Result;

interface Reduced {
  state: State;
  intents: {intent: Intent; uid: number}[];
}

const same = (state: State): Reduced => ({state, intents: []});

export function reduce(state: State, action: Action): Reduced {
  const top = state.stack.at(-1)!;
  if (action.type === 'status')
    return same(
      state.stack.some(s => s.uid === action.uid) ? {...state, status: {uid: action.uid, text: action.text}} : state,
    );
  if (action.type === 'job') {
    const running = (state.job?.running ?? 0) + action.change;
    return same({
      ...state,
      job:
        running > 0
          ? {label: action.label, running, stopping: action.change > 0 ? false : (state.job?.stopping ?? false)}
          : null,
    });
  }
  if (action.type === 'changed') return same({...state, version: state.version + 1});
  if (action.type === 'update')
    return same({
      ...state,
      stack: state.stack.map(s => (s.uid === action.uid ? {...action.update(s), uid: s.uid} : s)),
    });
  if (action.type === 'push') {
    if (top.uid !== action.uid) return same(state);
    let nextUid = state.nextUid;
    return same({
      ...state,
      stack: [...state.stack, ...action.screens.map(s => ({...s, uid: nextUid++}) as Screen)],
      nextUid,
      status: null,
    });
  }
  const view = action.view && action.view.uid === top.uid ? action.view : {uid: top.uid!, total: 0, page: 1};
  const {input, key} = action;
  if (key.ctrl && input === 'c') {
    if (!state.job || state.job.stopping) return same({...state, quitting: true});
    const what = state.job.running > 1 ? `${state.job.running} ${state.job.label}s` : `the ${state.job.label}`;
    const text = `stopping ${what}: what is done is kept, marked incomplete (Ctrl+C again quits)`;
    return {
      state: {...state, job: {...state.job, stopping: true}, status: {uid: top.uid!, text}},
      intents: [{intent: {kind: 'cancelJobs'}, uid: top.uid!}],
    };
  }
  if (state.picker) {
    const picker = state.picker;
    const r = pickerKey(picker, input, key);
    if (!r) return same(state);
    if ('cancel' in r) return same({...state, picker: null});
    if ('index' in r) return same({...state, picker: {...picker, index: r.index}});
    return picker.uid === top.uid
      ? apply({...state, picker: null}, defOf(top).picked?.(top, picker.purpose, r.chosen, view) ?? {})
      : same({...state, picker: null});
  }
  const def = defOf(top);
  if (state.help) {
    const b = bindingFor(GLOBAL_BINDINGS, ['global'], input, key);
    if (b && MOVES.has(b.id)) return same({...state, helpScroll: moveScroll(state.helpScroll, b.id, action.help)});
    return same(b && ['help', 'back', 'quit'].includes(b.id) ? {...state, help: false} : state);
  }
  if (def.mode?.(top)) return apply(state, def.input!(top, input, key, view));
  const b = bindingFor([...def.bindings, ...GLOBAL_BINDINGS], [top.kind, 'global'], input, key);
  if (!b) return same(state);
  if (b.id === 'quitNow') return same({...state, quitting: true});
  if (b.id === 'help') return same({...state, help: true, helpScroll: 0});
  if (b.id === 'copy') return {state, intents: [{intent: {kind: 'copy'}, uid: top.uid!}]};
  const out = def.command(top, b.id, view, state.stack.slice(0, -1));
  if (out) return apply(state, out);
  // q and Esc go back one screen; q quits only from the bottom (as k9s and lazygit do)
  if (b.id === 'back' || b.id === 'quit') {
    if (state.stack.length > 1) return same({...state, stack: state.stack.slice(0, -1), status: null});
    if (b.id === 'quit') return same({...state, quitting: true});
  }
  return same(state);
}

/** A screen's outcome applied to the stack: uids for new screens, status kept with its screen. */
function apply(state: State, out: Outcome<Screen>): Reduced {
  const top = state.stack.at(-1)!;
  let stack = state.stack.slice(0, -1);
  let nextUid = state.nextUid;
  if (out.parent && stack.length) stack = [...stack.slice(0, -1), {...out.parent, uid: stack.at(-1)!.uid} as Screen];
  if (out.screen !== null) stack.push(out.screen ? ({...out.screen, uid: top.uid} as Screen) : top);
  for (const s of out.push ?? []) stack.push({...s, uid: nextUid++} as Screen);
  if (!stack.length) stack = [top];
  const now = stack.at(-1)!;
  const status =
    out.status !== undefined
      ? out.status === null
        ? null
        : {uid: now.uid!, text: out.status}
      : now.uid === top.uid
        ? state.status
        : null;
  const picker = out.picker
    ? {...out.picker, uid: now.uid!, index: Math.max(0, Math.min(out.picker.initial ?? 0, out.picker.items.length - 1))}
    : state.picker;
  return {
    state: {...state, stack, nextUid, status, picker},
    intents: (out.intents ?? []).map(intent => ({intent, uid: top.uid!})),
  };
}
