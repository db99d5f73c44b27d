import {Text} from 'ink';
import {useMemo} from 'react';
import {ScreenFrame} from '../../components/frame.js';
import {TextView} from '../../components/text-view.js';
import type {Env} from '../types.js';
import {BINDINGS, type RankingScreen} from './keys.js';
import {rankingLines} from './lines.js';

export function RankingComponent({screen: s, env}: {screen: RankingScreen; env: Env}) {
  const {data, width, bodyHeight, theme, version} = env;
  const lines = useMemo(() => rankingLines(data.runs.rankings(), width), [data, width, version]);
  const refs = useMemo(() => lines.map(l => l.ref ?? null), [lines]);
  // the cursor starts on the first agent's row
  const cursor = refs[s.cursor] ? s.cursor : refs.findIndex(Boolean);
  env.report({uid: s.uid!, total: lines.length, page: bodyHeight, refs, copy: () => refs[cursor] ?? null});
  const shown = lines.map((l, i) =>
    i === cursor ? {...l, text: `› ${l.text.slice(2)}`, role: 'heading' as const} : l,
  );
  return (
    <ScreenFrame
      env={env}
      scope="ranking"
      bindings={BINDINGS}
      title="Lens rankings · pass rate vs process quality"
      subheader={
        <Text color={theme.muted}>
          AgentLens: the same runs ranked two ways · T or Enter: the selected agent's runs
        </Text>
      }
      body={<TextView lines={shown} scroll={s.scroll} height={bodyHeight} theme={theme} />}
    />
  );
}
