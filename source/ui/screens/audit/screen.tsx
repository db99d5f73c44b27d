import {Text} from 'ink';
import {useMemo} from 'react';
import {TextScreen} from '../../components/text-screen.js';
import type {Env} from '../types.js';
import {BINDINGS, type AuditScreen} from './keys.js';
import {auditLines} from './lines.js';

export function AuditComponent({screen: s, env}: {screen: AuditScreen; env: Env}) {
  const {data, width, version} = env;
  const a = useMemo(() => data.audits.audit(s.id), [data, s.id, version]);
  const lines = useMemo(() => (a ? auditLines(a.row, a.messages, width) : []), [a, width]);
  return (
    <TextScreen
      env={env}
      uid={s.uid!}
      scope="audit"
      bindings={BINDINGS}
      title={`Audit #${s.id}`}
      subheader={
        <Text bold wrap="truncate-end">
          {a ? `${a.row.instance} · ${a.row.agent}` : 'not found'}
        </Text>
      }
      lines={lines}
      scroll={s.scroll}
      missing={a ? null : `No audit ${s.id}. Esc goes back.`}
    />
  );
}
