import type {Binding} from '../../keys.js';
import {followCursor, moveScroll} from '../../nav.js';
import {agentRuns, RUNS_BINDING} from '../board/keys.js';
import type {Outcome, View} from '../types.js';

/** AgentLens: the same runs ranked by pass rate and by process quality. A cursor goes over the
 * agents' rows; the text around them scrolls with it. */
export interface RankingScreen {
  kind: 'ranking';
  uid?: number;
  scroll: number;
  /** the line of the selected agent's row */
  cursor: number;
}

declare module '../types.js' {
  interface ScreenStates {
    ranking: RankingScreen;
  }
}

export interface RankingView extends View {
  /** the agent each line is about, or null */
  refs: (string | null)[];
}

export const BINDINGS: Binding[] = [
  RUNS_BINDING,
  {
    id: 'open',
    label: 'runs',
    keys: 'Enter',
    description: "the selected agent's runs (as T)",
    scopes: ['ranking'],
    match: (_, key) => key.return,
  },
];

export function command(s: RankingScreen, id: string, view: RankingView): Outcome<RankingScreen> | null {
  const rows = view.refs.flatMap((r, i) => (r ? [i] : []));
  // the cursor is on the first agent's row until it moves
  const at = Math.max(0, rows.indexOf(s.cursor));
  const select = (line: number | undefined): Outcome<RankingScreen> => {
    if (line === undefined) return {screen: {...s, scroll: moveScroll(s.scroll, id, view)}};
    const {top} = followCursor({cursor: s.cursor, top: s.scroll}, line, view.page);
    return {screen: {...s, cursor: line, scroll: line === rows[0] ? 0 : top}};
  };
  if (id === 'down') return select(rows[Math.min(rows.length - 1, at + 1)]);
  if (id === 'up') return select(rows[Math.max(0, at - 1)]);
  if (id === 'top') return select(rows[0]);
  if (id === 'bottom') return select(rows.at(-1));
  if (id === 'pageDown' || id === 'pageUp')
    return select(rows[Math.min(rows.length - 1, Math.max(0, at + (id === 'pageDown' ? view.page : -view.page)))]);
  const agent = view.refs[rows[at] ?? -1];
  if ((id === 'runs' || id === 'open') && agent) return agentRuns(agent, [agent]);
  return null;
}
