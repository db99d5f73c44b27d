import type {Key} from 'ink';
import {SORT_KEYS, type SortKey} from '../../../core/trajectory/list-filter.js';
import {ch, INSTANCE_BINDING, fieldKey, fieldPrompt, MOVES, type Binding, type Scope} from '../../keys.js';
import {moveCursor, START, type Cursor} from '../../nav.js';
import type {Outcome, View} from '../types.js';

/** The trajectory list: the screen the explorer opens on (and, filtered, the runs of an agent
 * or an instance opened from elsewhere). */
export interface ListScreen extends Cursor {
  kind: 'list';
  uid?: number;
  filter: string;
  editingFilter: boolean;
  sort: SortKey;
  descending: boolean;
}

declare module '../types.js' {
  interface ScreenStates {
    list: ListScreen;
  }
}

export function listScreen(filter = ''): ListScreen {
  return {kind: 'list', ...START, filter, editingFilter: false, sort: 'id', descending: false};
}

export interface ListView extends View {
  /** trajectory ids of the rows on screen, from `top` */
  ids: number[];
  /** the instances of those rows */
  instances: string[];
  top: number;
  agents: string[];
}

export const BINDINGS: Binding[] = [
  {
    id: 'open',
    label: 'open',
    keys: 'Enter',
    description: 'open the selected trajectory',
    scopes: ['list'],
    hint: ['list'],
    match: (_, key) => key.return,
  },
  {
    id: 'traces',
    label: 'traces',
    keys: 't',
    description: 'traced patch pairs (buggy vs patched executions)',
    scopes: ['list'],
    hint: ['list'],
    match: ch('t'),
  },
  INSTANCE_BINDING,
  {
    id: 'leaderboard',
    label: 'leaderboard',
    keys: 'l',
    description: 'explanation-score leaderboard (ExplainBench)',
    scopes: ['list'],
    hint: ['list'],
    match: ch('l'),
  },
  {
    id: 'rankings',
    label: 'rankings',
    keys: 'R',
    description: 'process-quality rankings: rank by pass rate vs rank by quality (AgentLens)',
    scopes: ['list'],
    hint: ['list'],
    match: ch('R'),
  },
  {
    id: 'agreement',
    label: 'agreement',
    keys: 'A',
    description: "agreement on people's labels: Cohen's and Fleiss' κ, people vs models",
    scopes: ['list'],
    hint: ['list'],
    match: ch('A'),
  },
  {
    id: 'reasoning',
    keys: 'D',
    description: 'code reasoning (DeskCheck): per agent with vs without and chi-square, families, intent phases',
    scopes: ['list'],
    match: ch('D'),
  },
  {
    id: 'filter',
    label: 'filter',
    keys: '/',
    description:
      'filter by instance, agent or model, and resolved:yes/no/unknown, tier:lucky/solid/ideal/none, agent:NAME, instance:ID, reasoning:yes/no, claim:contradicted/confirmed/unverifiable (quote a value with spaces; Enter keeps, Esc clears)',
    scopes: ['list'],
    hint: ['list'],
    match: ch('/'),
  },
  {
    id: 'pickAgent',
    keys: 'a',
    description: 'filter by agent, chosen from a list of the stored agents',
    scopes: ['list'],
    match: ch('a'),
  },
  {
    id: 'pickTier',
    keys: 'L',
    description: 'filter by lens tier (Lucky, Solid, Ideal, none), chosen from a list',
    scopes: ['list'],
    match: ch('L'),
  },
  {
    id: 'sort',
    label: 'sort',
    keys: 's',
    description: 'sort by the next column',
    scopes: ['list'],
    hint: ['list'],
    match: ch('s'),
  },
  {id: 'reverse', keys: 'S', description: 'reverse the sort order', scopes: ['list'], match: ch('S')},
];

const TIERS = ['lucky', 'solid', 'ideal', 'none'];

/** The filter with one condition set to a value (replacing that condition if it was there). */
export function withCondition(filter: string, name: string, value: string): string {
  const kept = (filter.match(/[a-z]+:"[^"]*"?|\S+/gi) ?? []).filter(w => !w.toLowerCase().startsWith(`${name}:`));
  return [...kept, `${name}:${/\s/.test(value) ? `"${value.replace(/"/g, '')}"` : value}`].join(' ');
}

export function command(s: ListScreen, id: string, view: ListView): Outcome<ListScreen> | null {
  if (MOVES.has(id)) return {screen: {...s, ...moveCursor(s, id, view)}};
  if (id === 'instance') {
    const instance = view.instances[s.cursor - view.top];
    return instance ? {push: [{kind: 'instance', id: instance, scroll: 0}]} : {};
  }
  if (id === 'open') {
    const selected = view.ids[s.cursor - view.top];
    return selected === undefined
      ? {}
      : {push: [{kind: 'trajectory', id: selected, tab: 'steps', steps: START, scroll: 0}]};
  }
  // Esc clears a kept filter before it goes back
  if (id === 'back') return s.filter ? {screen: {...s, filter: '', ...START}} : null;
  if (id === 'traces') return {push: [{kind: 'pairs', list: START}]};
  if (id === 'leaderboard') return {push: [{kind: 'board', model: null, list: START}]};
  if (id === 'rankings') return {push: [{kind: 'ranking', scroll: 0, cursor: 0}]};
  if (id === 'agreement') return {push: [{kind: 'agreement', scroll: 0}]};
  if (id === 'reasoning') return {push: [{kind: 'reasoning', scroll: 0}]};
  if (id === 'filter') return {screen: {...s, editingFilter: true}};
  if (id === 'pickAgent') {
    return view.agents.length
      ? {
          picker: {
            purpose: 'agent',
            title: 'Show the runs of which agent?',
            items: view.agents.map(a => ({label: a, value: a})),
          },
        }
      : {status: 'no agents in this database'};
  }
  if (id === 'pickTier')
    return {
      picker: {
        purpose: 'tier',
        title: 'Show the runs of which lens tier?',
        items: TIERS.map(t => ({
          label: t === 'none' ? 'none (scored, no tier)' : t[0]!.toUpperCase() + t.slice(1),
          value: t,
        })),
      },
    };
  if (id === 'sort')
    return {screen: {...s, sort: SORT_KEYS[(SORT_KEYS.indexOf(s.sort) + 1) % SORT_KEYS.length]!, ...START}};
  if (id === 'reverse') return {screen: {...s, descending: !s.descending, ...START}};
  return null;
}

export function picked(s: ListScreen, purpose: string, value: string): Outcome<ListScreen> {
  return {screen: {...s, filter: withCondition(s.filter, purpose, value), ...START}};
}

export const mode = (s: ListScreen): Scope | null => (s.editingFilter ? 'textField' : null);

/** Typing the filter: the list narrows with every key. */
export function input(s: ListScreen, text: string, key: Key): Outcome<ListScreen> {
  const k = fieldKey(s.filter, text, key);
  if ('done' in k)
    return {
      screen: k.done === 'accept' ? {...s, editingFilter: false} : {...s, editingFilter: false, filter: '', ...START},
    };
  return k.text === s.filter ? {} : {screen: {...s, filter: k.text, ...START}};
}

export const prompt = (s: ListScreen) => (s.editingFilter ? fieldPrompt('filter', s.filter) : null);
