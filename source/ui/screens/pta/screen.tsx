import {Text} from 'ink';
import React, {useMemo} from 'react';
import {ScreenFrame} from '../../components/frame.js';
import {TextView} from '../../components/text-view.js';
import {ptaLines} from '../../pta-lines.js';
import type {Env} from '../types.js';
import {BINDINGS, type PtaScreen} from './keys.js';

export function PtaComponent({screen: s, env}: {screen: PtaScreen; env: Env}) {
  const {data, width, bodyHeight, theme, version} = env;
  const view = useMemo(() => data.pta(s.id), [data, s.id, version]);
  const lines = useMemo(() => (view ? ptaLines(view, width, Boolean(s.dag)) : []), [view, width, s.dag]);
  env.report({uid: s.uid!, total: lines.length, page: bodyHeight});
  return (
    <ScreenFrame
      env={env}
      scope="pta"
      bindings={BINDINGS}
      title={`PTA reference · trajectory #${s.id}`}
      subheader={<Text wrap="truncate-end" bold>{view ? `${view.instance} · ${view.agent}` : 'not found'}</Text>}
      body={view ? <TextView lines={lines} scroll={s.scroll} height={bodyHeight} theme={theme} /> : <Text color={theme.bad}>Trajectory #{s.id} is not in the database. Esc goes back.</Text>}
    />
  );
}
