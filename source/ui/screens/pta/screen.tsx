import {Text} from 'ink';
import {useMemo} from 'react';
import {TextScreen} from '../../components/text-screen.js';
import {ptaLines} from '../../pta-lines.js';
import type {Env} from '../types.js';
import {BINDINGS, type PtaScreen} from './keys.js';

export function PtaComponent({screen: s, env}: {screen: PtaScreen; env: Env}) {
  const {data, width, version} = env;
  const view = useMemo(() => data.runs.pta(s.id), [data, s.id, version]);
  const lines = useMemo(() => (view ? ptaLines(view, width, Boolean(s.dag)) : []), [view, width, s.dag]);
  return (
    <TextScreen
      env={env}
      uid={s.uid!}
      scope="pta"
      bindings={BINDINGS}
      title={`PTA reference · trajectory #${s.id}`}
      subheader={
        <Text wrap="truncate-end" bold>
          {view ? `${view.instance} · ${view.agent}` : 'not found'}
        </Text>
      }
      lines={lines}
      scroll={s.scroll}
      missing={view ? null : `Trajectory #${s.id} is not in the database. Esc goes back.`}
    />
  );
}
