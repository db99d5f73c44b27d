import {Text} from 'ink';
import {useMemo} from 'react';
import {ScreenFrame} from '../../components/frame.js';
import {TextView as Lines} from '../../components/text-view.js';
import type {Env} from '../types.js';
import {findable, position, useRun} from '../trajectory/screen.js';
import {stepLines, TrajectoryTitle} from '../trajectory/view.js';
import {BINDINGS, type StepScreen} from './keys.js';

export function StepComponent({screen: s, env}: {screen: StepScreen; env: Env}) {
  const {data, width, bodyHeight, theme, version} = env;
  const {detail, reasoning, reasoningSteps} = useRun(s.id, env);
  const step = useMemo(() => (detail ? data.runs.step(detail.id, s.idx) : null), [data, detail, s.idx, version]);
  const textLines = useMemo(
    () =>
      step
        ? stepLines(
            step,
            width,
            reasoning.marks.filter(m => m.step === s.idx),
          )
        : [],
    [step, width, reasoning, s.idx],
  );
  const lines = useMemo(() => findable(textLines), [textLines]);
  const evidence = useMemo(
    () =>
      reasoning.marks
        .filter(m => m.step === s.idx)
        .flatMap(m => {
          const c = m.claim as {
            text?: string;
            evidence?: {pair: number; side: 'buggy' | 'patched'; seq: number} | null;
          } | null;
          return c?.evidence && c.evidence.seq >= 0
            ? [{pair: c.evidence.pair, side: c.evidence.side, seq: c.evidence.seq, text: c.text ?? ''}]
            : [];
        }),
    [reasoning, s.idx],
  );
  env.report({
    uid: s.uid!,
    total: textLines.length,
    page: bodyHeight,
    steps: detail?.steps ?? 0,
    reasoningSteps,
    evidence,
    lines,
    copy: () => step?.actionText ?? null,
  });
  if (!detail) {
    return (
      <ScreenFrame
        env={env}
        scope="step"
        bindings={BINDINGS}
        title="Trajectory"
        subheader={<Text> </Text>}
        body={<Text color={theme.bad}>Trajectory #{s.id} is no longer in the database. Esc goes back.</Text>}
      />
    );
  }
  return (
    <ScreenFrame
      env={env}
      scope="step"
      bindings={BINDINGS}
      title={`Trajectory #${detail.id} · step ${s.idx + 1} of ${detail.steps}`}
      position={position(s.scroll, textLines.length, bodyHeight)}
      subheader={<TrajectoryTitle t={detail} width={width} theme={theme} />}
      body={<Lines lines={textLines} scroll={s.scroll} height={bodyHeight} theme={theme} />}
    />
  );
}
