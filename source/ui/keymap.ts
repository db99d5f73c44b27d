import type {Key} from 'ink';

/**
 * Every key the explorer answers to, in one place: the dispatcher matches against it, and the
 * help overlay, the status bar and readme.md's key table are generated from it.
 */

export type Scope = 'global' | 'list' | 'trajectory' | 'step' | 'pairs' | 'stepper' | 'board' | 'agentQuestions' | 'question' | 'pta' | 'ranking' | 'agreement';

export type CommandId =
  | 'help'
  | 'quit'
  | 'quitNow'
  | 'back'
  | 'down'
  | 'up'
  | 'pageDown'
  | 'pageUp'
  | 'top'
  | 'bottom'
  | 'open'
  | 'filter'
  | 'sort'
  | 'reverse'
  | 'tabSteps'
  | 'tabExplanation'
  | 'tabPatch'
  | 'tabInfo'
  | 'nextTab'
  | 'prevTab'
  | 'nextStep'
  | 'copy'
  | 'findText'
  | 'findNext'
  | 'findPrev'
  | 'prevStep'
  | 'traces'
  | 'stepOver'
  | 'stepBack'
  | 'stepInto'
  | 'stepOut'
  | 'toDelta'
  | 'deltaSummary'
  | 'search'
  | 'watch'
  | 'clearWatches'
  | 'liveWatch'
  | 'leaderboard'
  | 'nextModel'
  | 'toggleKey'
  | 'togglePrompt'
  | 'rescore'
  | 'rescoreFresh'
  | 'editExplanation'
  | 'correctStage'
  | 'reference'
  | 'rankings'
  | 'dagView'
  | 'flagQuestion'
  | 'agreement';

export interface Binding {
  id: CommandId;
  keys: string;
  description: string;
  scopes: Scope[];
  /** Shown in the status bar of these scopes, as `keys label`. */
  hint?: Scope[];
  label?: string;
  match: (input: string, key: Key) => boolean;
}

const all: Scope[] = ['list', 'trajectory', 'step', 'pairs', 'stepper', 'board', 'agentQuestions', 'question', 'pta', 'ranking', 'agreement'];

export const BINDINGS: Binding[] = [
  {id: 'help', label: 'help', keys: '?', description: 'show or hide this help', scopes: ['global'], hint: all, match: input => input === '?'},
  {id: 'quitNow', keys: 'Ctrl+C', description: 'quit at once, from any screen', scopes: ['global'], match: (input, key) => key.ctrl && input === 'c'},
  {id: 'quit', label: 'quit', keys: 'q', description: 'back one screen; quit from the trajectory list', scopes: ['global'], hint: ['list'], match: input => input === 'q'},
  {id: 'back', label: 'back', keys: 'Esc, Backspace', description: 'back to the previous screen (closes help, clears a filter); q too', scopes: all, hint: ['trajectory', 'step', 'pairs', 'stepper', 'board', 'agentQuestions', 'question', 'pta', 'ranking', 'agreement'], match: (_, key) => key.escape || key.backspace || key.delete},
  {id: 'down', keys: 'j, ↓', description: 'next row / scroll down (the stepper: next aligned row, into calls)', scopes: all, match: (input, key) => input === 'j' || key.downArrow},
  {id: 'up', keys: 'k, ↑', description: 'previous row / scroll up', scopes: all, match: (input, key) => input === 'k' || key.upArrow},
  {id: 'pageDown', keys: 'PgDn, Ctrl+F, Space', description: 'one page down', scopes: all, match: (input, key) => key.pageDown || (key.ctrl && input === 'f') || input === ' '},
  {id: 'pageUp', keys: 'PgUp, Ctrl+B', description: 'one page up', scopes: all, match: (input, key) => key.pageUp || (key.ctrl && input === 'b')},
  {id: 'top', keys: 'g, Home', description: 'first row / top', scopes: all, match: (input, key) => input === 'g' || key.home},
  {id: 'bottom', keys: 'G, End', description: 'last row / bottom', scopes: all, match: (input, key) => input === 'G' || key.end},
  {id: 'open', label: 'open', keys: 'Enter', description: 'open the selected trajectory, step, traced pair, agent or question', scopes: ['list', 'trajectory', 'pairs', 'board', 'agentQuestions'], hint: ['list', 'trajectory', 'pairs', 'board', 'agentQuestions'], match: (_, key) => key.return},
  {id: 'traces', label: 'traces', keys: 't', description: "traced patch pairs (buggy vs patched executions); on a trajectory, its patch's (else its instance's); on a question, its instance's", scopes: ['list', 'trajectory', 'question'], hint: ['list'], match: input => input === 't'},
  {id: 'leaderboard', label: 'leaderboard', keys: 'l', description: 'explanation-score leaderboard (ExplainBench)', scopes: ['list'], hint: ['list'], match: input => input === 'l'},
  {id: 'rankings', label: 'rankings', keys: 'R', description: 'process-quality rankings: rank by pass rate vs rank by quality (AgentLens)', scopes: ['list'], hint: ['list'], match: input => input === 'R'},
  {id: 'agreement', label: 'agreement', keys: 'A', description: "agreement on people's labels: Cohen's and Fleiss' κ, people vs models", scopes: ['list'], hint: ['list'], match: input => input === 'A'},
  {id: 'filter', label: 'filter', keys: '/', description: 'filter by instance, agent or model, and resolved:yes/no/unknown, tier:lucky/solid/ideal/none, agent:NAME (Enter keeps, Esc clears)', scopes: ['list'], hint: ['list'], match: input => input === '/'},
  {id: 'sort', label: 'sort', keys: 's', description: 'sort by the next column', scopes: ['list'], hint: ['list'], match: input => input === 's'},
  {id: 'reverse', keys: 'S', description: 'reverse the sort order', scopes: ['list'], match: input => input === 'S'},
  {id: 'tabSteps', label: 'steps', keys: '1', description: 'steps timeline', scopes: ['trajectory', 'step'], hint: ['trajectory'], match: input => input === '1'},
  {id: 'tabExplanation', label: 'explanation', keys: '2', description: 'final explanation', scopes: ['trajectory', 'step'], hint: ['trajectory'], match: input => input === '2'},
  {id: 'tabPatch', label: 'patch', keys: '3', description: 'submitted patch (coloured diff)', scopes: ['trajectory', 'step'], hint: ['trajectory'], match: input => input === '3'},
  {id: 'tabInfo', keys: '4', description: 'run details: status, source, cost', scopes: ['trajectory', 'step'], match: input => input === '4'},
  {id: 'nextTab', keys: 'Tab, l, →', description: 'next tab', scopes: ['trajectory'], match: (input, key) => (key.tab && !key.shift) || input === 'l' || key.rightArrow},
  {id: 'prevTab', keys: 'Shift+Tab, h, ←', description: 'previous tab', scopes: ['trajectory'], match: (input, key) => (key.tab && key.shift) || input === 'h' || key.leftArrow},
  {id: 'copy', label: 'copy', keys: 'y', description: 'copy what is under the cursor — a run\'s file, a step\'s command, a pair\'s steps command, a file:line, an agent or a question id — to the clipboard (OSC 52; the status line shows it too)', scopes: ['list', 'trajectory', 'step', 'pairs', 'stepper', 'board', 'agentQuestions', 'question'], match: input => input === 'y'},
  {id: 'findText', label: 'find', keys: '/', description: "find text in the step (thought, action, observation) or in the explanation, patch or info tab", scopes: ['trajectory', 'step'], hint: ['step'], match: input => input === '/'},
  {id: 'findNext', keys: 'n', description: 'next match of the text being found (on a step without a search: next step)', scopes: ['trajectory', 'step'], match: input => input === 'n'},
  {id: 'findPrev', keys: 'N', description: 'previous match of the text being found', scopes: ['trajectory', 'step'], match: input => input === 'N'},
  {id: 'nextStep', label: 'next step', keys: 'n, ]', description: 'next step', scopes: ['step'], hint: ['step'], match: input => input === 'n' || input === ']'},
  {id: 'prevStep', label: 'previous', keys: 'p, [', description: 'previous step', scopes: ['step'], hint: ['step'], match: input => input === 'p' || input === '['},
  {id: 'reference', label: 'reference', keys: 'P', description: "the run's PTA reference: the other passing runs merged, its path and where it leaves", scopes: ['trajectory', 'step'], hint: ['trajectory'], match: input => input === 'P'},
  {id: 'dagView', label: 'DAG/tree', keys: 'D', description: 'show the reference as a DAG (suffixes that agree merged) or as the tree', scopes: ['pta'], hint: ['pta'], match: input => input === 'D'},
  {id: 'correctStage', label: 'correct stage', keys: 'c', description: "correct the step's intent stage (then e/i/v/o; x removes yours), stored under $DELTALENS_ANNOTATOR", scopes: ['trajectory', 'step'], hint: ['trajectory', 'step'], match: input => input === 'c'},
  {id: 'stepOver', label: 'next', keys: 'n', description: 'next aligned step in this frame (over calls)', scopes: ['stepper'], hint: ['stepper'], match: input => input === 'n'},
  {id: 'stepBack', label: 'prev', keys: 'p', description: 'previous aligned step in this frame', scopes: ['stepper'], hint: ['stepper'], match: input => input === 'p'},
  {id: 'stepInto', label: 'into', keys: 's', description: 'step into: the very next aligned row', scopes: ['stepper'], hint: ['stepper'], match: input => input === 's'},
  {id: 'stepOut', label: 'out', keys: 'o', description: 'step out to the caller', scopes: ['stepper'], hint: ['stepper'], match: input => input === 'o'},
  {id: 'toDelta', label: 'delta', keys: 'd', description: 'jump to the delta point (first behavioural difference)', scopes: ['stepper'], hint: ['stepper'], match: input => input === 'd'},
  {id: 'deltaSummary', label: 'summary', keys: 'D', description: 'show or hide the delta summary', scopes: ['stepper'], hint: ['stepper'], match: input => input === 'D'},
  {id: 'search', label: 'find', keys: '/', description: 'find the next row naming a variable or function', scopes: ['stepper'], hint: ['stepper'], match: input => input === '/'},
  {id: 'watch', label: 'watch', keys: 'x', description: 'add a watch expression, evaluated on both sides at every step', scopes: ['stepper'], hint: ['stepper'], match: input => input === 'x'},
  {id: 'clearWatches', keys: 'X', description: 'remove all watch expressions', scopes: ['stepper'], match: input => input === 'X'},
  {id: 'liveWatch', keys: 'L', description: 'evaluate the watches here by a live re-run (deltatrace eval), when recorded state cannot', scopes: ['stepper'], match: input => input === 'L'},
  {id: 'nextModel', label: 'model', keys: 'm', description: 'the next QA model whose answers are stored', scopes: ['board', 'agentQuestions', 'question'], hint: ['board'], match: input => input === 'm'},
  {id: 'toggleKey', label: 'key', keys: 'v', description: 'show or hide the answer key', scopes: ['question'], hint: ['question'], match: input => input === 'v'},
  {id: 'togglePrompt', label: 'prompt', keys: 'p', description: 'show the prompt exactly as sent (sample 1)', scopes: ['question'], hint: ['question'], match: input => input === 'p'},
  {id: 'rescore', label: 're-score', keys: 'r', description: 're-score this question × explanation live with the QA model ($DELTALENS_QA_MODEL, default lexical)', scopes: ['question'], hint: ['question'], match: input => input === 'r'},
  {id: 'rescoreFresh', keys: 'R', description: 're-score with new samples (r answers only the samples not stored yet; R asks the model 5 more times)', scopes: ['question'], match: input => input === 'R'},
  {id: 'flagQuestion', label: 'flag', keys: 'f', description: 'flag the question (valid, ambiguous, wrong key, guessable, leaks the answer, broken context) with a note, under $DELTALENS_ANNOTATOR', scopes: ['question'], hint: ['question'], match: input => input === 'f'},
  {id: 'editExplanation', label: 'edit', keys: 'e', description: 'edit the explanation in $EDITOR and keep it as a custom explanation', scopes: ['question'], hint: ['question'], match: input => input === 'e'},
];

export function commandFor(scope: Scope, input: string, key: Key): CommandId | null {
  const binding = BINDINGS.find(b => (b.scopes.includes(scope) || b.scopes.includes('global')) && b.match(input, key));
  return binding?.id ?? null;
}

export function hintsFor(scope: Scope): Binding[] {
  return BINDINGS.filter(b => b.hint?.includes(scope));
}
