import {Text} from 'ink';
import {useMemo} from 'react';
import {TextScreen} from '../../components/text-screen.js';
import type {Env} from '../types.js';
import {BINDINGS, type InstanceScreen, type InstanceView} from './keys.js';
import {instanceLines} from './lines.js';

export function InstanceComponent({screen: s, env}: {screen: InstanceScreen; env: Env}) {
  const {data, width, version} = env;
  const view = useMemo(() => data.instances.instance(s.id), [data, s.id, version]);
  const lines = useMemo(() => (view ? instanceLines(view, width) : []), [view, width]);
  return (
    <TextScreen
      env={env}
      uid={s.uid!}
      scope="instance"
      bindings={BINDINGS}
      title={`Instance · ${s.id}`}
      subheader={
        <Text wrap="truncate-end" bold>
          {view
            ? `${view.runs.length} runs · ${view.pairs.length} traced pairs · ${view.questions.length} questions`
            : 'not found'}
        </Text>
      }
      lines={lines}
      scroll={s.scroll}
      missing={view ? null : `Instance ${s.id} is not in the database. Esc goes back.`}
      view={
        {runs: view?.runs.length ?? 0, pairs: view?.pairs.length ?? 0} satisfies Omit<
          InstanceView,
          'uid' | 'total' | 'page'
        >
      }
    />
  );
}
