import {Text} from 'ink';
import {useMemo} from 'react';
import {TextScreen} from '../../components/text-screen.js';
import {reasoningReportLines} from '../../../services/reasoning.js';
import type {Env} from '../types.js';
import {BINDINGS, type ReasoningScreen} from './keys.js';

export function ReasoningComponent({screen: s, env}: {screen: ReasoningScreen; env: Env}) {
  const {data, width, theme, version} = env;
  // the same lines as deltalens reasoning report; wide tables scroll off the right edge at 80 columns
  const lines = useMemo(() => reasoningReportLines(data.runs.reasoningReport(), width), [data, width, version]);
  return (
    <TextScreen
      env={env}
      uid={s.uid!}
      scope="reasoning"
      bindings={BINDINGS}
      title="Code reasoning · DeskCheck"
      subheader={
        <Text color={theme.muted} wrap="truncate-end">
          per agent (resolved with vs without, chi-square), families, intent phases — deltalens reasoning report
        </Text>
      }
      lines={lines}
      scroll={s.scroll}
    />
  );
}
