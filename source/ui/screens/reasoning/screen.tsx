import {Text} from 'ink';
import React, {useMemo} from 'react';
import {ScreenFrame} from '../../components/frame.js';
import {TextView} from '../../components/text-view.js';
import {reasoningReportLines} from '../../../services/reasoning.js';
import type {Env} from '../types.js';
import {BINDINGS, type ReasoningScreen} from './keys.js';

export function ReasoningComponent({screen: s, env}: {screen: ReasoningScreen; env: Env}) {
  const {data, width, bodyHeight, theme, version} = env;
  // the same lines as deltalens reasoning report; wide tables scroll off the right edge at 80 columns
  const lines = useMemo(() => reasoningReportLines(data.reasoningReport(), width), [data, width, version]);
  env.report({uid: s.uid!, total: lines.length, page: bodyHeight});
  return (
    <ScreenFrame
      env={env}
      scope="reasoning"
      bindings={BINDINGS}
      title="Code reasoning · DeskCheck"
      subheader={<Text color={theme.muted} wrap="truncate-end">per agent (resolved with vs without, chi-square), families, intent phases — deltalens reasoning report</Text>}
      body={<TextView lines={lines} scroll={s.scroll} height={bodyHeight} theme={theme} />}
    />
  );
}
