import {Box, Text} from 'ink';
import {fit} from '../../../core/text/sanitize.js';
import {textBlock, type DisplayLine} from '../../components/text-view.js';
import type {Theme} from '../../theme.js';
import type {LensScore} from '../../data/runs.js';

const WASTE_NAMES: Record<string, string> = {
  'regression-cycles': 'regression cycles',
  'blind-retries': 'blind retries',
  'missing-final-verification': 'no final verification',
  'excessive-exploration': 'excessive exploration',
  'temporal-disorder': 'temporal disorder',
};

/** "3–5, 8" for step indices (shown 1-based like the step list). */
function stepSpans(steps: number[]): string {
  const sorted = [...new Set(steps)].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j += 1;
    out.push(i === j ? `${sorted[i]! + 1}` : `${sorted[i]! + 1}–${sorted[j]! + 1}`);
    i = j + 1;
  }
  return out.join(', ');
}

/** The badge line under the intent timeline: tier, mechanism, quality, where the run leaves its
 * reference, waste. What decides comes first; a line too long for the screen wraps to a second. */
function lensLineText(score: LensScore | null, why: string): string {
  if (!score) return `lens   ${why} · P reference`;
  const waste = score.waste.map(w => `${WASTE_NAMES[w.signal] ?? w.signal} ${stepSpans(w.steps)}`).join('; ');
  return `lens   [${tierText(score)}] Q ${score.quality.toFixed(1)} · ${leaves(score)}${waste ? ` · waste: ${waste}` : ''} · threshold ${score.threshold.value} · 4 evidence · P reference`;
}

const tierText = (score: LensScore) =>
  `${score.tier ?? (score.resolved === false ? 'failing' : 'no tier')}${score.mechanism ? ` ${score.mechanism.id} ${score.mechanism.name}` : ''}`;
const leaves = (score: LensScore) =>
  score.divergence === null ? 'follows its reference' : `◆ leaves its reference at ${score.divergence + 1}`;

/** Rows the lens line takes at a width: 1, or 2 when it wraps. */
export function lensLineRows(score: LensScore | null, why: string, width: number): number {
  return [...lensLineText(score, why)].length > width ? 2 : 1;
}

export function LensLine({
  score,
  why,
  width,
  theme,
}: {
  score: LensScore | null;
  why: string;
  width: number;
  theme: Theme;
}) {
  const rows = lensLineRows(score, why, width);
  if (!score)
    return (
      <Text color={theme.muted} wrap="truncate-end">
        {fit(lensLineText(score, why), width)}
      </Text>
    );
  const tierColor =
    score.tier === 'Lucky'
      ? theme.bad
      : score.tier === 'Ideal'
        ? theme.good
        : score.tier === 'Solid'
          ? theme.accent
          : theme.muted;
  const waste = score.waste.map(w => `${WASTE_NAMES[w.signal] ?? w.signal} ${stepSpans(w.steps)}`).join('; ');
  return (
    <Box width={width} height={rows} overflow="hidden">
      <Text wrap="wrap">
        <Text color={theme.muted}>lens </Text>
        <Text bold color={tierColor} inverse={!theme.color && score.tier === 'Lucky'}>
          [{tierText(score)}]
        </Text>
        <Text> Q {score.quality.toFixed(1)} · </Text>
        <Text bold={score.divergence !== null}>{leaves(score)}</Text>
        {waste ? <Text color={theme.warn}> · waste: {waste}</Text> : null}
        <Text color={theme.muted}> · threshold {score.threshold.value} · 4 evidence · P reference</Text>
      </Text>
    </Box>
  );
}

/** The lens section of the Info tab: signals, tier, mechanism with its evidence, waste with steps, reference. */
export function lensInfoLines(score: LensScore | null, why: string, width: number): DisplayLine[] {
  const lines: DisplayLine[] = [{text: ''}, {text: 'Process lens (AgentLens)', role: 'heading'}];
  if (!score) return [...lines, {text: why, role: 'muted'}];
  const s = score.signals;
  const t = score.threshold;
  lines.push(
    ...textBlock(
      `quality       ${score.quality.toFixed(1)} = 100 × mean(coherence ${s.coherence}, structural alignment ${s.alignment}, set coverage ${s.coverage}, temporal profile ${s.temporal})`,
      width,
    ),
    ...textBlock(`threshold     ${t.value} (${t.note}); Ideal from ${t.ideal}`, width),
    ...textBlock(
      `tier          ${score.tier ?? (score.resolved === false ? 'none: the run did not pass' : 'none: no resolved status')}`,
      width,
    ),
  );
  if (score.mechanism) {
    lines.push(
      ...textBlock(
        `mechanism     ${score.mechanism.id} ${score.mechanism.name}${score.mechanism.steps.length ? ` (steps ${stepSpans(score.mechanism.steps)})` : ''}`,
        width,
      ),
    );
    for (const e of score.mechanism.evidence) lines.push(...textBlock(`              · ${e}`, width));
  }
  lines.push(
    ...textBlock(
      `divergence    ${score.divergence === null ? 'never leaves its reference' : `leaves its reference at step ${score.divergence + 1}`}`,
      width,
    ),
  );
  if (!score.waste.length) lines.push({text: 'waste         none'});
  for (const w of score.waste)
    lines.push(
      ...textBlock(
        `waste         ${WASTE_NAMES[w.signal] ?? w.signal}, steps ${stepSpans(w.steps)}: ${w.detail}`,
        width,
      ),
    );
  const r = score.reference;
  lines.push(
    ...textBlock(
      `reference     ${r.runs.length} passing run(s) of the task without this one: ${r.runs.map(x => `#${x}`).join(' ')}${r.excluded_lucky.length ? `; Lucky runs left out: ${r.excluded_lucky.map(x => `#${x}`).join(' ')}` : ''}`,
      width,
    ),
    ...textBlock(`key states    ${r.key_states.length ? r.key_states.join('; ') : 'none'}`, width),
  );
  if (r.missing_key_states.length) lines.push(...textBlock(`not covered   ${r.missing_key_states.join('; ')}`, width));
  return lines;
}
