import {ch, MOVES, type Binding} from '../../keys.js';
import {moveCursor, START, type Cursor} from '../../nav.js';
import {listScreen, withCondition} from '../list/keys.js';
import type {Outcome, View} from '../types.js';

/** The explanation-score leaderboard (ExplainBench) for one QA model. */
export interface BoardScreen {
  kind: 'board';
  uid?: number;
  model: string | null;
  list: Cursor;
}

declare module '../types.js' {
  interface ScreenStates {
    board: BoardScreen;
  }
}

/** The stored QA models, and the one a screen shows while it has chosen none (the report's default). */
export interface ModelsView extends View {
  models: string[];
  shownModel: string | null;
  /** agents with runs in the store (T has somewhere to go) */
  runAgents: string[];
}

export interface BoardView extends ModelsView {
  agents: {agent: string; explanations: string}[];
}

/** m on the screens that show one model's answers. */
export const MODEL_BINDING: Binding = {
  id: 'nextModel',
  label: 'model',
  keys: 'm',
  description: 'the next QA model whose answers are stored',
  scopes: ['board', 'agentQuestions', 'question'],
  hint: ['board'],
  match: ch('m'),
};

/** T: from an agent (or a question's instance) to its runs: the trajectory list, filtered. */
export const RUNS_BINDING: Binding = {
  id: 'runs',
  label: 'runs',
  keys: 'T',
  description:
    "the trajectories behind the row: the agent's runs (leaderboard, an agent's questions, rankings) or the instance's runs (a question)",
  scopes: ['board', 'agentQuestions', 'question', 'ranking'],
  hint: ['board', 'ranking'],
  match: ch('T'),
};

export const BINDINGS: Binding[] = [
  {
    id: 'open',
    label: 'questions',
    keys: 'Enter',
    description: "the agent's questions, with every sample's verdict",
    scopes: ['board'],
    hint: ['board'],
    match: (_, key) => key.return,
  },
  MODEL_BINDING,
  RUNS_BINDING,
];

/** The model after `current` among the stored ones (from the one on screen). */
export function nextModel(current: string | null, view: ModelsView): string | null {
  if (!view.models.length) return current;
  const i = view.models.indexOf(current ?? view.shownModel ?? view.models[0]!);
  return view.models[(i + 1) % view.models.length]!;
}

/** The runs of an agent: the trajectory list filtered to it, opened on top — or why there are none. */
export function agentRuns<S>(agent: string, runAgents: string[]): Outcome<S> {
  if (!runAgents.includes(agent))
    return {status: `no runs of ${agent} in this database: only its explanations and answers are stored`};
  return {push: [listScreen(withCondition('', 'agent', agent))]};
}

export function command(s: BoardScreen, id: string, view: BoardView): Outcome<BoardScreen> | null {
  if (MOVES.has(id)) return {screen: {...s, list: moveCursor(s.list, id, view)}};
  if (id === 'nextModel') return {screen: {...s, model: nextModel(s.model, view), list: START}};
  const a = view.agents[s.list.cursor];
  if (!a) return null;
  if (id === 'open') return {push: [{kind: 'agentQuestions', ...a, model: s.model, list: START}]};
  if (id === 'runs') return agentRuns(a.agent, view.runAgents);
  return null;
}
