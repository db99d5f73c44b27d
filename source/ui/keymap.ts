import type {Key} from 'ink';

/**
 * Every key the explorer answers to, in one place: the dispatcher matches against it, and the
 * help overlay, the status bar and readme.md's key table are generated from it.
 */

export type Scope = 'global' | 'list' | 'trajectory' | 'step';

export type CommandId =
  | 'help'
  | 'quit'
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
  | 'nextStep'
  | 'prevStep';

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

const all: Scope[] = ['list', 'trajectory', 'step'];

export const BINDINGS: Binding[] = [
  {id: 'help', label: 'help', keys: '?', description: 'show or hide this help', scopes: ['global'], hint: all, match: input => input === '?'},
  {id: 'quit', label: 'quit', keys: 'q, Ctrl+C', description: 'quit', scopes: ['global'], hint: all, match: (input, key) => input === 'q' || (key.ctrl && input === 'c')},
  {id: 'back', label: 'back', keys: 'Esc, Backspace', description: 'back to the previous screen (closes help, clears a filter)', scopes: ['list', 'trajectory', 'step'], hint: ['trajectory', 'step'], match: (_, key) => key.escape || key.backspace || key.delete},
  {id: 'down', keys: 'j, ↓', description: 'next row / scroll down', scopes: all, match: (input, key) => input === 'j' || key.downArrow},
  {id: 'up', keys: 'k, ↑', description: 'previous row / scroll up', scopes: all, match: (input, key) => input === 'k' || key.upArrow},
  {id: 'pageDown', keys: 'PgDn, Ctrl+F, Space', description: 'one page down', scopes: all, match: (input, key) => key.pageDown || (key.ctrl && input === 'f') || input === ' '},
  {id: 'pageUp', keys: 'PgUp, Ctrl+B', description: 'one page up', scopes: all, match: (input, key) => key.pageUp || (key.ctrl && input === 'b')},
  {id: 'top', keys: 'g, Home', description: 'first row / top', scopes: all, match: (input, key) => input === 'g' || key.home},
  {id: 'bottom', keys: 'G, End', description: 'last row / bottom', scopes: all, match: (input, key) => input === 'G' || key.end},
  {id: 'open', label: 'open', keys: 'Enter', description: 'open the selected trajectory or step', scopes: ['list', 'trajectory'], hint: ['list', 'trajectory'], match: (_, key) => key.return},
  {id: 'filter', label: 'filter', keys: '/', description: 'filter by instance, agent or model (Enter keeps, Esc clears)', scopes: ['list'], hint: ['list'], match: input => input === '/'},
  {id: 'sort', label: 'sort', keys: 's', description: 'sort by the next column', scopes: ['list'], hint: ['list'], match: input => input === 's'},
  {id: 'reverse', keys: 'S', description: 'reverse the sort order', scopes: ['list'], match: input => input === 'S'},
  {id: 'tabSteps', label: 'steps', keys: '1', description: 'steps timeline', scopes: ['trajectory', 'step'], hint: ['trajectory'], match: input => input === '1'},
  {id: 'tabExplanation', label: 'explanation', keys: '2', description: 'final explanation', scopes: ['trajectory', 'step'], hint: ['trajectory'], match: input => input === '2'},
  {id: 'tabPatch', label: 'patch', keys: '3', description: 'submitted patch (coloured diff)', scopes: ['trajectory', 'step'], hint: ['trajectory'], match: input => input === '3'},
  {id: 'tabInfo', keys: '4', description: 'run details: status, source, cost', scopes: ['trajectory', 'step'], match: input => input === '4'},
  {id: 'nextTab', keys: 'Tab', description: 'next tab', scopes: ['trajectory'], match: (_, key) => key.tab},
  {id: 'nextStep', label: 'next step', keys: 'n, ]', description: 'next step', scopes: ['step'], hint: ['step'], match: input => input === 'n' || input === ']'},
  {id: 'prevStep', label: 'previous', keys: 'p, [', description: 'previous step', scopes: ['step'], hint: ['step'], match: input => input === 'p' || input === '['},
];

export function commandFor(scope: Scope, input: string, key: Key): CommandId | null {
  const binding = BINDINGS.find(b => (b.scopes.includes(scope) || b.scopes.includes('global')) && b.match(input, key));
  return binding?.id ?? null;
}

export function hintsFor(scope: Scope): Binding[] {
  return BINDINGS.filter(b => b.hint?.includes(scope));
}
