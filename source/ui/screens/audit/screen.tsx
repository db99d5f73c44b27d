import {Text} from 'ink';
import React, {useMemo} from 'react';
import {ScreenFrame} from '../../components/frame.js';
import {TextView} from '../../components/text-view.js';
import type {Env} from '../types.js';
import {BINDINGS, type AuditScreen} from './keys.js';
import {auditLines} from './lines.js';

export function AuditComponent({screen: s, env}: {screen: AuditScreen; env: Env}) {
  const {data, width, bodyHeight, theme, version} = env;
  const a = useMemo(() => data.audit(s.id), [data, s.id, version]);
  const lines = useMemo(() => (a ? auditLines(a.row, a.messages, width) : []), [a, width]);
  env.report({uid: s.uid!, total: lines.length, page: bodyHeight});
  return (
    <ScreenFrame
      env={env}
      scope="audit"
      bindings={BINDINGS}
      title={`Audit #${s.id}`}
      subheader={<Text bold wrap="truncate-end">{a ? `${a.row.instance} · ${a.row.agent}` : 'not found'}</Text>}
      body={a ? <TextView lines={lines} scroll={s.scroll} height={bodyHeight} theme={theme} /> : <Text color={theme.bad}>No audit {s.id}. Esc goes back.</Text>}
    />
  );
}
