import type {ScreenDef} from '../types.js';
import {BINDINGS, command, type AgentQuestionsScreen, type AgentQuestionsView} from './keys.js';
import {AgentQuestionsComponent} from './screen.js';

export const agentQuestions: ScreenDef<AgentQuestionsScreen, AgentQuestionsView> = {
  kind: 'agentQuestions',
  title: "An agent's questions",
  bindings: BINDINGS,
  Component: AgentQuestionsComponent,
  command,
};
