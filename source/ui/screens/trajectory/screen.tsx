import {Box, Text} from 'ink';
import {useMemo} from 'react';
import {ScreenFrame} from '../../components/frame.js';
import {TextView as Lines} from '../../components/text-view.js';
import type {DisplayLine} from '../../display-lines.js';
import type {Env} from '../types.js';
import {BINDINGS, type TrajectoryScreen} from './keys.js';
import {LensLine, lensInfoLines, lensLineRows} from './lens-line.js';
import {IntentTimeline, ReasoningTimeline, StepRows, TabBar, tabBarWidth, tabLines, TrajectoryTitle} from './view.js';

/** A run as the screens read it: its record, stages, lens score and the marks they put on steps. */
export function useRun(id: number, env: Env) {
  const {data, version} = env;
  const detail = useMemo(() => data.runs.trajectory(id), [data, id, version]);
  const stages = useMemo(() => (detail ? data.runs.stages(detail.id) : ''), [data, detail]);
  const lens = useMemo(() => (detail ? data.runs.lens(detail.id) : null), [data, detail]);
  const marks = useMemo(
    () => ({
      waste: new Set(lens?.score?.waste.flatMap(w => w.steps) ?? []),
      divergence: lens?.score?.divergence ?? null,
    }),
    [lens],
  );
  const reasoning = useMemo(
    () => (detail ? data.runs.reasoning(detail.id) : {letters: '', marks: []}),
    [data, detail, version],
  );
  const reasoningSteps = useMemo(() => [...reasoning.letters].flatMap((c, i) => (c === '·' ? [] : [i])), [reasoning]);
  return {detail, stages, lens, marks, reasoning, reasoningSteps};
}

/** Lines of a text, lower-cased, for `/`. */
export const findable = (lines: DisplayLine[]) => lines.map(l => l.text.toLowerCase());

/** "  37%": how far down a text the screen is, when it does not fit. */
export function position(scroll: number, lines: number, height: number): string {
  return lines > height ? `  ${Math.min(100, Math.round(((scroll + height) / lines) * 100))}%` : '';
}

export function TrajectoryComponent({screen: s, env}: {screen: TrajectoryScreen; env: Env}) {
  const {data, width, bodyHeight, theme, version} = env;
  const {detail, stages, lens, marks, reasoning, reasoningSteps} = useRun(s.id, env);
  const lensRows = lensLineRows(lens?.score ?? null, lens?.why ?? '', width);
  const reasonRows = reasoningSteps.length ? 1 : 0;
  const stepRows = Math.max(1, bodyHeight - 1 - reasonRows - lensRows);
  const heads = useMemo(
    () => (s.tab === 'steps' && detail ? data.runs.stepHeads(detail.id, s.steps.top, stepRows) : []),
    [data, detail, s.tab, s.steps.top, stepRows, version],
  );
  const textLines = useMemo(() => {
    if (!detail || s.tab === 'steps') return [];
    const lines = tabLines(detail, s.tab, width);
    return s.tab === 'info' && lens ? [...lines, ...lensInfoLines(lens.score, lens.why, width)] : lines;
  }, [detail, lens, s.tab, width]);
  const lines = useMemo(() => findable(textLines), [textLines]);
  const audits = useMemo(
    () => (detail ? data.audits.auditIds(detail.instance, detail.agent) : []),
    [data, detail, version],
  );
  env.report({
    uid: s.uid!,
    ...(s.tab === 'steps' ? {total: detail?.steps ?? 0, page: stepRows} : {total: textLines.length, page: bodyHeight}),
    steps: detail?.steps ?? 0,
    instance: detail?.instance,
    reasoningSteps,
    audits,
    lines,
    copy: () =>
      s.tab !== 'steps'
        ? (detail?.sourcePath ?? null)
        : detail
          ? (data.runs.step(detail.id, s.steps.cursor)?.actionText ?? null)
          : null,
  });
  if (!detail) {
    return (
      <ScreenFrame
        env={env}
        scope="trajectory"
        bindings={BINDINGS}
        title="Trajectory"
        subheader={<Text> </Text>}
        body={<Text color={theme.bad}>Trajectory #{s.id} is no longer in the database. Esc goes back.</Text>}
      />
    );
  }
  const bar = tabBarWidth(width);
  return (
    <ScreenFrame
      env={env}
      scope="trajectory"
      bindings={BINDINGS}
      title={`Trajectory #${detail.id}`}
      position={s.tab === 'steps' ? '' : position(s.scroll, textLines.length, bodyHeight)}
      subheader={
        <Box width={width}>
          <Box width={Math.max(10, width - bar)}>
            <TrajectoryTitle t={detail} width={Math.max(10, width - bar - 1)} theme={theme} />
          </Box>
          <TabBar tab={s.tab} width={width} theme={theme} />
        </Box>
      }
      body={
        s.tab === 'steps' ? (
          <Box flexDirection="column" height={bodyHeight}>
            <IntentTimeline
              stages={stages}
              width={width}
              theme={theme}
              waste={marks.waste}
              divergence={marks.divergence}
            />
            {reasonRows ? <ReasoningTimeline letters={reasoning.letters} width={width} theme={theme} /> : null}
            <LensLine score={lens?.score ?? null} why={lens?.why ?? ''} width={width} theme={theme} />
            <StepRows
              heads={heads}
              top={s.steps.top}
              cursor={s.steps.cursor}
              width={width}
              height={stepRows}
              theme={theme}
              waste={marks.waste}
              divergence={marks.divergence}
            />
          </Box>
        ) : (
          <Lines lines={textLines} scroll={s.scroll} height={bodyHeight} theme={theme} />
        )
      }
    />
  );
}
