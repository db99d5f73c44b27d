import {Box, Text} from 'ink';
import {oneLine, pad, padMiddle} from '../../../core/text/sanitize.js';
import type {TrajectorySummary} from '../../../store/trajectories.js';
import type {Theme} from '../../theme.js';

interface ListColumns {
  id: number;
  instance: number;
  agent: number;
  /** the model column, from 160 columns (0: not shown) */
  model: number;
  resolved: number;
  steps: number;
  explanation: number;
  lens: number;
}

/** Column widths for a terminal width; instance and agent share what the numbers leave. */
function listColumns(width: number): ListColumns {
  const fixed = {id: 6, resolved: 4, steps: 6, explanation: 7, lens: 6};
  const gaps = 6;
  const all = Math.max(10, width - fixed.id - fixed.resolved - fixed.steps - fixed.explanation - fixed.lens - gaps);
  // wide terminals: a model column, and room for the instance and agent names that were cut
  if (width >= 160) {
    const instance = Math.min(48, Math.floor(all * 0.3));
    const agent = Math.min(56, Math.floor(all * 0.4));
    return {...fixed, instance, agent, model: Math.max(10, all - instance - agent - 1)};
  }
  const instance = Math.max(6, Math.min(34, Math.floor(all * 0.5)));
  return {...fixed, instance, agent: Math.max(4, all - instance), model: 0};
}

export function ListHeader({
  width,
  sort,
  descending,
  theme,
}: {
  width: number;
  sort: string;
  descending: boolean;
  theme: Theme;
}) {
  const c = listColumns(width - 1);
  const mark = (key: string, label: string) => (sort === key ? `${label}${descending ? '↓' : '↑'}` : label);
  const text = ` ${[
    pad(mark('id', '#'), c.id, 'right'),
    pad(mark('instance', 'instance'), c.instance),
    pad(mark('agent', 'agent'), c.agent),
    ...(c.model ? [pad('model', c.model)] : []),
    pad(mark('resolved', 'res'), c.resolved),
    pad(mark('steps', 'steps'), c.steps, 'right'),
    pad(mark('explanation', 'expl'), c.explanation, 'right'),
    pad(mark('lens', 'lens'), c.lens, 'right'),
  ].join(' ')}`;
  return (
    <Text bold underline={!theme.color} color={theme.muted}>
      {text}
    </Text>
  );
}

/** "L 61" Lucky / "S 72" Solid / "I 81" Ideal / "· 43" scored without a tier / "" not scored. */
function lensCell(lens: TrajectorySummary['lens']): string {
  if (!lens) return '';
  return `${lens.tier ? lens.tier[0] : '·'} ${Math.round(lens.quality)}`;
}

export function TrajectoryRows({
  rows,
  top,
  cursor,
  width,
  height,
  theme,
}: {
  rows: TrajectorySummary[];
  top: number;
  cursor: number;
  width: number;
  height: number;
  theme: Theme;
}) {
  // The marker column keeps the selection visible where colour and inverse are off (NO_COLOR).
  const c = listColumns(width - 1);
  return (
    <Box flexDirection="column" height={height}>
      {rows.length === 0 ? (
        <Text color={theme.muted}>
          No trajectories match. Esc clears the filter; `deltalens import PATH` adds some.
        </Text>
      ) : null}
      {rows.map((row, i) => {
        const selected = top + i === cursor;
        const resolved = row.resolved === null ? '?' : row.resolved ? 'yes' : 'no';
        const resolvedColor = row.resolved === null ? theme.muted : row.resolved ? theme.good : theme.bad;
        const cells = (
          <>
            {selected ? '›' : ' '}
            {pad(String(row.id), c.id, 'right')} {pad(oneLine(row.instance, c.instance), c.instance)}{' '}
            {padMiddle(row.agent, c.agent)} {c.model ? `${padMiddle(row.model, c.model)} ` : ''}
            <Text color={selected ? undefined : resolvedColor}>{pad(resolved, c.resolved)}</Text>{' '}
            {pad(String(row.steps), c.steps, 'right')} {pad(formatChars(row.explanationChars), c.explanation, 'right')}{' '}
            <Text
              color={
                selected
                  ? undefined
                  : row.lens?.tier === 'Lucky'
                    ? theme.bad
                    : row.lens?.tier === 'Ideal'
                      ? theme.good
                      : theme.muted
              }
            >
              {pad(lensCell(row.lens), c.lens, 'right')}
            </Text>
          </>
        );
        return (
          <Text key={row.id} wrap="truncate-end" {...(selected ? theme.selected : {})}>
            {cells}
          </Text>
        );
      })}
    </Box>
  );
}

export function formatChars(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}
