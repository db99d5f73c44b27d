import {Text} from 'ink';
import {useMemo} from 'react';
import {TextScreen} from '../../components/text-screen.js';
import type {Env} from '../types.js';
import {BINDINGS, type AgreementScreen} from './keys.js';
import {agreementLines} from './lines.js';

export function AgreementComponent({screen: s, env}: {screen: AgreementScreen; env: Env}) {
  const {data, width, theme, version} = env;
  const lines = useMemo(() => agreementLines(data.questions.agreement(), width), [data, width, version]);
  return (
    <TextScreen
      env={env}
      uid={s.uid!}
      scope="agreement"
      bindings={BINDINGS}
      title="Agreement · people's labels"
      subheader={
        <Text color={theme.muted}>Cohen's κ per pair, Fleiss' κ, people vs QA models and vs adjudicated answers</Text>
      }
      lines={lines}
      scroll={s.scroll}
    />
  );
}
