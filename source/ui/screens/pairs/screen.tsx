import {useMemo} from 'react';
import {ScreenFrame} from '../../components/frame.js';
import type {Env} from '../types.js';
import {BINDINGS, type PairsScreen} from './keys.js';
import {PairRows, PairsHeader, shortTest, TEST_COLUMN_WIDTH} from './rows.js';

/** The pairs to list: a run's are those traced from its patch, else (none) its instance's. */
function usePairs(s: PairsScreen, env: Env) {
  const {data, version} = env;
  return useMemo(() => {
    if (s.instance !== undefined)
      return {rows: data.traces.pairs().filter(p => p.instance === s.instance), instance: s.instance, fallback: false};
    if (s.trajectory === undefined) return {rows: data.traces.pairs(), instance: null, fallback: false};
    const own = data.traces.pairs(s.trajectory);
    if (own.length) return {rows: own, instance: null, fallback: false};
    const instance = data.runs.trajectory(s.trajectory)?.instance ?? null;
    return {rows: instance ? data.traces.pairs().filter(p => p.instance === instance) : [], instance, fallback: true};
  }, [data, s.instance, s.trajectory, version]);
}

export function PairsComponent({screen: s, env}: {screen: PairsScreen; env: Env}) {
  const {width, bodyHeight, theme} = env;
  const {rows, instance, fallback} = usePairs(s, env);
  env.report({
    uid: s.uid!,
    total: rows.length,
    page: bodyHeight,
    pairs: rows.map(r => r.pair),
    instances: rows.map(r => r.instance),
    copy: () => (rows[s.list.cursor] ? `deltalens steps ${rows[s.list.cursor]!.pair} --delta` : null),
  });
  const selected = rows[s.list.cursor];
  // narrow: the test column is left out, so the title names the selected pair's test
  const test = selected && width < TEST_COLUMN_WIDTH ? ` · #${selected.pair} runs ${shortTest(selected.test, 60)}` : '';
  const scope =
    s.instance !== undefined
      ? ` of ${s.instance}`
      : s.trajectory === undefined
        ? ''
        : fallback
          ? ` of ${instance} (none from #${s.trajectory}'s own patch)`
          : ` of trajectory #${s.trajectory}`;
  return (
    <ScreenFrame
      env={env}
      scope="pairs"
      bindings={BINDINGS}
      title={`Traced pairs (${rows.length})${scope}${test}`}
      subheader={<PairsHeader width={width} theme={theme} />}
      body={
        <PairRows rows={rows} top={s.list.top} cursor={s.list.cursor} width={width} height={bodyHeight} theme={theme} />
      }
    />
  );
}
