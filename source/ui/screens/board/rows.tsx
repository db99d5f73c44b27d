import {Box, Text} from 'ink';
import {pad, padMiddle} from '../../../core/text/sanitize.js';
import {QUESTION_TYPES} from '../../../core/questions/model.js';
import type {ReportAgent} from '../../../services/report.js';
import type {Theme} from '../../theme.js';

const SHORT = {e2e_intent: 'E2E int', e2e_effect: 'E2E eff', local_intent: 'Loc int', local_effect: 'Loc eff'} as const;

const f = (x: number | null | undefined) => (x === null || x === undefined ? '  —  ' : x.toFixed(3));

/** Narrow terminals drop the bar, then the efficacy column, before squeezing the agent name. */
function columns(width: number) {
  const efficacy = width >= 100;
  const fixed = 8 * 4 + 16 + 12 + (efficacy ? 9 : 0);
  // wide terminals give the agent name its room before the bar grows
  const agent = Math.max(12, Math.min(width >= 160 ? 64 : 34, width - fixed - (width >= 110 ? 12 : 0)));
  const bar = width >= 110 ? Math.min(width >= 160 ? 40 : 1000, Math.max(0, width - fixed - agent - 3)) : 0;
  return {agent, bar, efficacy};
}

export function BoardHeader({width, theme}: {width: number; theme: Theme}) {
  const c = columns(width - 1);
  return (
    <Text bold underline={!theme.color} color={theme.muted} wrap="truncate-end">
      {` ${[pad('agent (explanations)', c.agent), ...QUESTION_TYPES.map(t => pad(SHORT[t], 7, 'right')), pad('S_exp ± SEM', 15, 'right'), ...(c.bar ? [pad('', c.bar)] : []), ...(c.efficacy ? [pad('efficacy', 8, 'right')] : []), pad('rank e/eff', 11, 'right')].join(' ')}`}
    </Text>
  );
}

export function BoardRows({
  rows,
  top,
  cursor,
  width,
  height,
  theme,
}: {
  rows: ReportAgent[];
  top: number;
  cursor: number;
  width: number;
  height: number;
  theme: Theme;
}) {
  const c = columns(width - 1);
  // an agent scored on fewer question types than the best-covered one is ranked on less: marked *
  const typesOf = (a: ReportAgent) => QUESTION_TYPES.filter(t => a.types[t].score !== null).length;
  const most = Math.max(0, ...rows.map(typesOf));
  return (
    <Box flexDirection="column" height={height}>
      {rows.length === 0 ? (
        <Text color={theme.muted}>
          No answers stored for this model. `deltalens score` or `deltalens import --format explainbench DIR`.
        </Text>
      ) : null}
      {rows.slice(top, top + height).map((a, i) => {
        const selected = top + i === cursor;
        const filled = a.s_exp === null ? 0 : Math.round(a.s_exp * c.bar);
        const shift =
          a.rank_shift === null
            ? ''
            : a.rank_shift > 0
              ? ` ↑${a.rank_shift}`
              : a.rank_shift < 0
                ? ` ↓${-a.rank_shift}`
                : ' =';
        const fewer = typesOf(a) < most ? '*' : '';
        const ranks = `${fewer}#${a.rank_explanation ?? '—'}/${a.rank_efficacy === null ? '—' : `#${a.rank_efficacy}`}${shift}`;
        return (
          <Text key={`${a.agent}/${a.explanations}`} wrap="truncate-end" {...(selected ? theme.selected : {})}>
            {selected ? '›' : ' '}
            {padMiddle(`${a.agent}${a.explanations !== 'original' ? ` (${a.explanations})` : ''}`, c.agent)}{' '}
            {QUESTION_TYPES.map(t => pad(f(a.types[t].score), 7, 'right')).join(' ')}{' '}
            {pad(`${f(a.s_exp)} ± ${f(a.s_exp_sem)}`, 15, 'right')}{' '}
            {c.bar ? (
              <Text color={selected ? undefined : theme.accent}>
                {'█'.repeat(filled)}
                {' '.repeat(Math.max(0, c.bar - filled))}{' '}
              </Text>
            ) : null}
            {c.efficacy ? `${pad(f(a.efficacy), 8, 'right')} ` : ''}
            {pad(ranks, 11, 'right')}
          </Text>
        );
      })}
    </Box>
  );
}
