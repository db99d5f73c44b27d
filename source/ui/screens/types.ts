import type {Key} from 'ink';
import type React from 'react';
import type {ExplorerData} from '../data/index.js';
import type {Binding, Scope} from '../keys.js';
import type {Size} from '../nav.js';
import type {Theme} from '../theme.js';

/**
 * What a screen is: one folder under ui/screens/ holding its state, its key bindings, its
 * reducer branch (`command`, `input`) and its component (the data hook and the view). The
 * router (ui/app.tsx) keeps the stack; it never knows what a screen shows.
 */

/** What a screen's component tells the router after each render: the sizes keys move within,
 * the ids on screen (so reducers never query), and what y copies. Plain data, except `copy`,
 * which only the command runner calls. */
export interface View extends Size {
  uid: number;
  copy?: () => string | null;
}

/** What the router gives a screen's component. */
export interface Env {
  data: ExplorerData;
  width: number;
  /** rows under the header and the screen's own sub-header line, above the status bar */
  bodyHeight: number;
  theme: Theme;
  /** bumped whenever a command changed stored data: hooks that read the store depend on it */
  version: number;
  /** the last status message made on this screen */
  status: string | null;
  /** how a build running in the background is going (the demo's traced part), while it runs */
  background: string | null;
  /** the prompt of the screen's sub-mode (a text field, a letter to press), if one is open */
  prompt: string | null;
  /** an open picker, drawn where the body would be */
  overlay: React.ReactNode | null;
  report<V extends View>(view: V): void;
}

/**
 * Every screen's state type, by kind. A screen adds its own, in its keys.ts:
 *
 *     declare module '../types.js' { interface ScreenStates { list: ListScreen } }
 *
 * so that the union of them all is known here without this file — which every screen
 * imports — importing any screen.
 */
// biome-ignore lint/suspicious/noEmptyInterface: each screen's keys.ts adds its state to it
export interface ScreenStates {}

/** Any screen's state: what the router's stack holds. */
export type Screen = ScreenStates[keyof ScreenStates];

/**
 * Side effects a key asks for. Reducers return intents (with the ids they act on); the one
 * command runner below calls the service and hands the result back as an action — so a reducer
 * never writes the store, runs a model, opens an editor or touches the clipboard.
 */
export type Intent =
  | {kind: 'copy'}
  | {kind: 'setStage'; trajectory: number; idx: number; stage: string | null}
  | {kind: 'flag'; question: string; verdict: string; note: string}
  | {kind: 'rescore'; question: string; explanation: number; fresh: boolean; model: string | null}
  | {kind: 'edit'; instance: string; agent: string; text: string}
  | {kind: 'review'; question: string; action: 'accepted' | 'rejected'; note: string}
  | {kind: 'editQuestion'; question: string}
  | {kind: 'live'; pair: number; row: number; exprs: string[]}
  | {kind: 'findRow'; pair: number; text: string; from: number}
  | {kind: 'openEvidence'; pair: number; side: 'buggy' | 'patched'; seq: number; text: string}
  | {kind: 'startAudit'; target: {trajectory: number} | {instance: string; agent: string}}
  | {kind: 'cancelJobs'};

/** What a key did to a screen. `screen` replaces it (null: it closes); `parent` replaces the
 * screen under it; `push` opens screens on top; `intents` go to the command runner. */
export interface Outcome<S> {
  screen?: S | null;
  parent?: Screen;
  push?: Screen[];
  intents?: Intent[];
  status?: string | null;
  /** open a picker (ink-select-input); the chosen value comes back through `picked` */
  picker?: Picker;
}

export interface Picker {
  /** what the value is for, handed back to the screen's `picked` */
  purpose: string;
  title: string;
  items: {label: string; value: string}[];
  initial?: number;
}

export interface ScreenDef<S extends {kind: string}, V extends View = View> {
  kind: S['kind'];
  /** help's heading for this screen */
  title: string;
  bindings: Binding[];
  Component: (props: {screen: S; env: Env}) => React.ReactElement;
  /** a bound key on this screen; null when the screen leaves it to the router (back, quit) */
  command(screen: S, id: string, view: V, below: Screen[]): Outcome<S> | null;
  /** a sub-mode that takes every key (a text field, a prompt): its scope, for the prompt and help */
  mode?(screen: S): Scope | null;
  input?(screen: S, input: string, key: Key, view: V): Outcome<S>;
  /** the prompt of the sub-mode, in the status line */
  prompt?(screen: S): string | null;
  picked?(screen: S, purpose: string, value: string, view: V): Outcome<S>;
}
