import {MOVES, type Binding} from '../../keys.js';
import {moveCursor, type Cursor} from '../../nav.js';
import {agentRuns, MODEL_BINDING, nextModel, RUNS_BINDING, type ModelsView} from '../board/keys.js';
import {questionScreen} from '../question/keys.js';
import type {Outcome} from '../types.js';

/** One agent's questions under one QA model, with every sample's verdict. */
export interface AgentQuestionsScreen {
  kind: 'agentQuestions';
  uid?: number;
  agent: string;
  explanations: string;
  model: string | null;
  list: Cursor;
}

declare module '../types.js' {
  interface ScreenStates {
    agentQuestions: AgentQuestionsScreen;
  }
}

export interface AgentQuestionsView extends ModelsView {
  questions: string[];
}

export const BINDINGS: Binding[] = [
  {
    id: 'open',
    label: 'open',
    keys: 'Enter',
    description: 'the question with its context, choices, explanation and answers',
    scopes: ['agentQuestions'],
    hint: ['agentQuestions'],
    match: (_, key) => key.return,
  },
  MODEL_BINDING,
  RUNS_BINDING,
];

export function command(
  s: AgentQuestionsScreen,
  id: string,
  view: AgentQuestionsView,
): Outcome<AgentQuestionsScreen> | null {
  if (MOVES.has(id)) return {screen: {...s, list: moveCursor(s.list, id, view)}};
  if (id === 'nextModel') return {screen: {...s, model: nextModel(s.model, view)}};
  if (id === 'runs') return agentRuns(s.agent, view.runAgents);
  const q = id === 'open' ? view.questions[s.list.cursor] : undefined;
  return q === undefined ? null : {push: [{...questionScreen(q, s.agent, s.explanations), model: s.model}]};
}
