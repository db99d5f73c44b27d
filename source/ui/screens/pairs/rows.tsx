import {Box, Text} from 'ink';
import {oneLine, pad, padMiddle} from '../../../core/text/sanitize.js';
import type {PairListRow} from '../../data/traces.js';
import type {Theme} from '../../theme.js';

/** Below this width the test has no column: the title names the selected pair's test instead. */
export const TEST_COLUMN_WIDTH = 110;

function columns(width: number) {
  const fixed = {pair: 5, outcome: 15};
  const rest = Math.max(20, width - fixed.pair - fixed.outcome - 5);
  if (width < TEST_COLUMN_WIDTH) {
    const instance = Math.min(24, Math.floor(rest * 0.3));
    const label = Math.min(18, Math.floor(rest * 0.22));
    return {...fixed, instance, label, test: 0, delta: Math.max(8, rest - instance - label)};
  }
  // the delta decides: it keeps at least 30 columns; instance, patch and test share the rest
  const delta = Math.max(30, Math.floor(rest * 0.4));
  const shared = Math.max(12, rest - delta - 1);
  const instance = Math.min(24, Math.floor(shared * 0.3));
  const label = Math.min(18, Math.floor(shared * 0.34));
  const test = Math.min(44, shared - instance - label - 2);
  return {...fixed, instance, label, test, delta: Math.max(8, rest - instance - label - test - 2)};
}

/** A test node id as short as it can be and still say which test: the test's own name when
 * room is short, with its file's name when there is room. */
export function shortTest(nodeid: string, width: number): string {
  const [file, ...rest] = nodeid.split('::');
  const base = file!.split('/').at(-1)!;
  if (!rest.length) return base;
  const full = `${base}::${rest.join('::')}`;
  return full.length <= width ? full : rest.join('::');
}

export function PairsHeader({width, theme}: {width: number; theme: Theme}) {
  const c = columns(width - 1);
  return (
    <Text bold underline={!theme.color} color={theme.muted} wrap="truncate-end">
      {` ${[pad('#', c.pair, 'right'), pad('instance', c.instance), pad('patch', c.label), ...(c.test ? [pad('test', c.test)] : []), pad('buggy→patched', c.outcome), pad('delta', c.delta)].join(' ')}`}
    </Text>
  );
}

export function PairRows({
  rows,
  top,
  cursor,
  width,
  height,
  theme,
}: {
  rows: PairListRow[];
  top: number;
  cursor: number;
  width: number;
  height: number;
  theme: Theme;
}) {
  const c = columns(width - 1);
  return (
    <Box flexDirection="column" height={height}>
      {rows.length === 0 ? (
        <Text color={theme.muted}>
          No traced pairs here. `deltalens trace --help` makes some (`--trajectory ID --repo DIR` traces a run's patch).
        </Text>
      ) : null}
      {rows.slice(top, top + height).map((r, i) => {
        const selected = top + i === cursor;
        const outcome = `${r.buggy}→${r.patched}`;
        return (
          <Text key={r.pair} wrap="truncate-end" {...(selected ? theme.selected : {})}>
            {selected ? '›' : ' '}
            {pad(String(r.pair), c.pair, 'right')} {pad(oneLine(r.instance, c.instance), c.instance)}{' '}
            {pad(oneLine(r.label ?? '', c.label), c.label)}
            {c.test ? ` ${padMiddle(shortTest(r.test, c.test), c.test)}` : ''}{' '}
            <Text color={selected ? undefined : r.patched === 'passed' ? theme.good : theme.bad}>
              {pad(outcome, c.outcome)}
            </Text>{' '}
            {oneLine(r.delta, c.delta)}
          </Text>
        );
      })}
    </Box>
  );
}
