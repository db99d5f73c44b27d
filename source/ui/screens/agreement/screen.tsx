import {Text} from 'ink';
import React, {useMemo} from 'react';
import {ScreenFrame} from '../../components/frame.js';
import {TextView} from '../../components/text-view.js';
import type {Env} from '../types.js';
import {BINDINGS, type AgreementScreen} from './keys.js';
import {agreementLines} from './lines.js';

export function AgreementComponent({screen: s, env}: {screen: AgreementScreen; env: Env}) {
  const {data, width, bodyHeight, theme, version} = env;
  const lines = useMemo(() => agreementLines(data.agreement(), width), [data, width, version]);
  env.report({uid: s.uid!, total: lines.length, page: bodyHeight});
  return (
    <ScreenFrame
      env={env}
      scope="agreement"
      bindings={BINDINGS}
      title="Agreement · people's labels"
      subheader={<Text color={theme.muted}>Cohen's κ per pair, Fleiss' κ, people vs QA models and vs adjudicated answers</Text>}
      body={<TextView lines={lines} scroll={s.scroll} height={bodyHeight} theme={theme} />}
    />
  );
}
