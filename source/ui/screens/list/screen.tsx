import {useMemo} from 'react';
import {parseListFilter} from '../../../core/trajectory/list-filter.js';
import {ScreenFrame} from '../../components/frame.js';
import type {Env} from '../types.js';
import {BINDINGS, type ListScreen} from './keys.js';
import {ListHeader, TrajectoryRows} from './rows.js';

/** The list's data: the rows on screen (only those are queried), the count, the agents. */
function useList(s: ListScreen, env: Env) {
  const {data, bodyHeight, version} = env;
  const parsed = useMemo(() => parseListFilter(s.filter), [s.filter]);
  const query = useMemo(() => {
    const {unknown: _unknown, ...conditions} = parsed;
    return {...conditions, sort: s.sort, descending: s.descending};
  }, [parsed, s.sort, s.descending]);
  const total = useMemo(() => data.runs.count(query), [data, query, version]);
  const rows = useMemo(
    () => data.runs.list({...query, offset: s.top, limit: bodyHeight}),
    [data, query, s.top, bodyHeight, version],
  );
  const agents = useMemo(() => data.runs.agents(), [data, version]);
  return {parsed, total, rows, agents};
}

export function ListComponent({screen: s, env}: {screen: ListScreen; env: Env}) {
  const {data, width, bodyHeight, theme} = env;
  const {parsed, total, rows, agents} = useList(s, env);
  env.report({
    uid: s.uid!,
    total,
    page: bodyHeight,
    ids: rows.map(r => r.id),
    instances: rows.map(r => r.instance),
    top: s.top,
    agents,
    copy: () => {
      const id = rows[s.cursor - s.top]?.id;
      return id === undefined ? null : (data.runs.trajectory(id)?.sourcePath ?? null);
    },
  });
  const unknown = parsed.unknown.length
    ? ` · not a condition: ${parsed.unknown.join(' ')} (resolved: tier: agent: instance: reasoning: claim:)`
    : '';
  return (
    <ScreenFrame
      env={env}
      scope="list"
      bindings={BINDINGS}
      title={`Trajectories (${total}${s.filter ? ` matching "${s.filter}"` : ''})${unknown}`}
      subheader={<ListHeader width={width} sort={s.sort} descending={s.descending} theme={theme} />}
      body={
        <TrajectoryRows rows={rows} top={s.top} cursor={s.cursor} width={width} height={bodyHeight} theme={theme} />
      }
    />
  );
}
