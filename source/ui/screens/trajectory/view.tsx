import {Box, Text} from 'ink';
import {fit, oneLine, pad} from '../../../core/text/sanitize.js';
import {append} from '../../../core/arrays.js';
import type {StepHead, StepRow, TrajectoryDetail} from '../../../store/trajectories.js';
import {observationLanguage} from '../../highlight.js';
import {diffBlock, textBlock, type DisplayLine} from '../../components/text-view.js';
import {markedBlock} from '../../display-lines.js';
import {TABS, type Tab} from './keys.js';
import type {Theme} from '../../theme.js';
import {formatChars} from '../list/rows.js';
import {RULES} from '../../../core/lens/labeller.js';
import {TAXONOMY} from '../../../core/reasoning/detect.js';
import type {StoredMark} from '../../../store/reasoning.js';

const TAB_LABELS: Record<Tab, string> = {steps: 'Steps', explanation: 'Explanation', patch: 'Patch', info: 'Info'};
const SHORT_LABELS: Record<Tab, string> = {steps: 'Steps', explanation: 'Expl', patch: 'Patch', info: 'Info'};

/** Width the tab bar takes at a terminal width (short labels below 120 columns). */
export function tabBarWidth(width: number): number {
  const labels = width < 120 ? SHORT_LABELS : TAB_LABELS;
  // one space before the bar, so a bracketed active first tab never touches the title; below 90
  // columns the tabs go without their numbers (1–4 still choose them), so the title keeps its instance
  return 1 + TABS.reduce((sum, t) => sum + labels[t].length + (width < 90 ? 2 : 4), 0);
}

function statusWord(resolved: boolean | null): string {
  return resolved === null ? 'status unknown' : resolved ? 'resolved' : 'unresolved';
}

export function TrajectoryTitle({t, width, theme}: {t: TrajectoryDetail; width: number; theme: Theme}) {
  // whether it resolved and how long it is always show; the agent and model take what is left
  const tail = ` · ${statusWord(t.resolved)} · ${t.steps} steps`.length;
  const head = Math.min([...`#${t.id} ${t.instance}`].length, Math.max(12, width - tail));
  const room = width - head - tail - 3;
  const agent = `${t.agent}${t.model ? ` (${t.model})` : ''}`;
  return (
    <Text wrap="truncate-end">
      <Text bold>{fit(`#${t.id} ${t.instance}`, head)}</Text>
      <Text color={theme.muted}> · {room >= 6 ? `${oneLine(agent, room)} · ` : ''}</Text>
      <Text color={t.resolved === null ? theme.muted : t.resolved ? theme.good : theme.bad}>
        {statusWord(t.resolved)}
      </Text>
      <Text color={theme.muted}> · {t.steps} steps</Text>
    </Text>
  );
}

export function TabBar({tab, width, theme}: {tab: Tab; width: number; theme: Theme}) {
  const labels = width < 120 ? SHORT_LABELS : TAB_LABELS;
  return (
    <Text wrap="truncate-end">
      {' '}
      {TABS.map((t, i) => (
        <Text key={t} {...(t === tab ? theme.selected : {color: theme.muted})}>
          {/* without colour (NO_COLOR, a capture) the active tab is bracketed, same width */}
          {t === tab && !theme.color
            ? `[${width < 90 ? '' : `${i + 1} `}${labels[t]}]`
            : ` ${width < 90 ? '' : `${i + 1} `}${labels[t]} `}
        </Text>
      ))}
    </Text>
  );
}

/** Intent stages: E exploration, I implementation, V verification, O orchestration. */
const STAGE_COLOR: Record<string, string> = {E: 'blue', I: 'yellow', V: 'green', O: 'magenta'};

/**
 * One cell per step, letters so it reads without colour; the legend after it. Steps in a waste
 * signal are underlined; the step where the run leaves its reference is shown inverse.
 */
const LEGENDS = [
  ' E explore I implement V verify O orchestrate · _ waste · ◆ leaves reference',
  ' E explore I implement V verify O orchestrate · _ waste · ◆ leaves ref.',
  ' E expl. I impl. V verify O orch. · _ waste · ◆ leaves reference',
  ' E expl. I impl. V verify O orch. · _ waste · ◆ leaves ref.',
  ' EIVO stages · _ waste · ◆ leaves reference',
];

export function IntentTimeline({
  stages,
  width,
  theme,
  waste = new Set(),
  divergence = null,
}: {
  stages: string;
  width: number;
  theme: Theme;
  waste?: Set<number>;
  divergence?: number | null;
}) {
  const room = Math.max(4, width - 8);
  const shown = stages.length > room - 1 ? stages.slice(0, room - 1) : stages;
  const more = stages.length > shown.length;
  // the longest legend that fits beside the cells: what ◆ means is never the part cut
  const left = width - 'intent '.length - shown.length - (more ? 1 : 0);
  const legend = LEGENDS.find(l => l.length <= left) ?? LEGENDS.at(-1)!;
  return (
    <Text wrap="truncate-end">
      <Text color={theme.muted}>intent </Text>
      {[...shown].map((c, i) => (
        <Text
          key={i}
          color={theme.color ? STAGE_COLOR[c] : undefined}
          underline={waste.has(i)}
          inverse={i === divergence}
        >
          {c}
        </Text>
      ))}
      {more ? <Text color={theme.muted}>…</Text> : null}
      <Text color={theme.muted}>{legend}</Text>
    </Text>
  );
}

/** One cell per step under the intent timeline: the first code-reasoning family of its thought. */
export function ReasoningTimeline({letters, width, theme}: {letters: string; width: number; theme: Theme}) {
  const room = Math.max(4, width - 8);
  const shown = letters.length > room - 1 ? letters.slice(0, room - 1) : letters;
  return (
    <Text wrap="truncate-end">
      <Text color={theme.muted}>reason </Text>
      {[...shown].map((c, i) => (
        <Text key={i} color={c === '·' ? theme.muted : theme.accent} bold={c !== '·'}>
          {c}
        </Text>
      ))}
      {letters.length > shown.length ? <Text color={theme.muted}>…</Text> : null}
      <Text color={theme.muted}> A state B calls C loop D branch E return/raise · r next</Text>
    </Text>
  );
}

export function StepRows({
  heads,
  top,
  cursor,
  width,
  height,
  theme,
  waste = new Set(),
  divergence = null,
}: {
  heads: StepHead[];
  top: number;
  cursor: number;
  width: number;
  height: number;
  theme: Theme;
  waste?: Set<number>;
  divergence?: number | null;
}) {
  const toolWidth = Math.min(18, Math.max(6, Math.floor(width * 0.15)));
  const sizeWidth = 7;
  // the code-reasoning families of each step's thought (A–E), when any step has one
  const reasonWidth = heads.some(h => h.reasoning) ? 3 : 0;
  const actionWidth = Math.max(8, width - 11 - toolWidth - sizeWidth - 3 - reasonWidth);
  return (
    <Box flexDirection="column" height={height}>
      {heads.length === 0 ? <Text color={theme.muted}>This trajectory has no steps.</Text> : null}
      {heads.map((h, i) => {
        const selected = top + i === cursor;
        const stage = h.person ?? h.stage;
        // * a person corrected the labeller; ◆ the run leaves its reference here; ~ part of a waste signal
        const corrected = h.person !== null && h.person !== undefined ? '*' : ' ';
        const mark = h.idx === divergence ? '◆' : waste.has(h.idx) ? '~' : ' ';
        return (
          <Text key={h.idx} wrap="truncate-end" {...(selected ? theme.selected : {})}>
            {selected ? '›' : ' '}
            {pad(String(h.idx + 1), 4, 'right')}{' '}
            <Text color={selected ? undefined : (STAGE_COLOR[stage ?? ''] ?? theme.muted)} bold>
              {stage ?? '·'}
            </Text>
            {corrected}
            <Text color={selected ? undefined : theme.warn}>{mark}</Text>{' '}
            {reasonWidth ? (
              <Text color={selected ? undefined : theme.accent}>
                {pad(h.reasoning.length > 2 ? `${h.reasoning.slice(0, 1)}+` : h.reasoning, reasonWidth)}
              </Text>
            ) : null}
            <Text color={selected ? undefined : theme.accent}>{pad(oneLine(h.tool ?? '—', toolWidth), toolWidth)}</Text>{' '}
            {pad(oneLine(h.action || '(no action)', actionWidth), actionWidth)}{' '}
            <Text color={selected ? undefined : theme.muted}>
              {pad(formatChars(h.observationChars), sizeWidth - 1, 'right')}
            </Text>
          </Text>
        );
      })}
    </Box>
  );
}

/** Lines of the explanation, patch or info tab. */
export function tabLines(t: TrajectoryDetail, tab: Exclude<Tab, 'steps'>, width: number): DisplayLine[] {
  if (tab === 'explanation') {
    if (t.explanation === null)
      return [{text: 'No explanation: the source has no rationale for the final tool call.', role: 'muted'}];
    const lines: DisplayLine[] = [
      {
        text: `Final explanation (${formatChars(t.explanationChars)} chars, the rationale of the last tool call)`,
        role: 'muted',
      },
      {text: ''},
    ];
    return append(lines, textBlock(t.explanation, width));
  }
  if (tab === 'patch') {
    if (!t.patch) return [{text: 'No patch was submitted (or the source does not record it).', role: 'muted'}];
    const lines = diffBlock(t.patch, width);
    if (t.patchChars > t.patch.length)
      lines.push(
        {text: ''},
        {
          text: `… ${formatChars(t.patchChars - t.patch.length)} more characters not shown here (deltalens show trajectory ID --json has all of it)`,
          role: 'muted',
        },
      );
    return lines;
  }
  const rows: [string, string][] = [
    ['instance', t.instance],
    ['agent', t.agent],
    ['model', t.model || '—'],
    ['status', `${statusWord(t.resolved)}${t.resolvedSource ? ` (from ${t.resolvedSource})` : ''}`],
    ['exit status', t.exitStatus ?? '—'],
    ['steps', String(t.steps)],
    ['cost', t.cost === null ? '—' : `$${t.cost.toFixed(4)}`],
    ['tokens', t.tokensIn === null ? '—' : `${t.tokensIn} in / ${t.tokensOut ?? '?'} out`],
    ['format', t.format],
    ['source', `${t.sourcePath}${t.sourceLocator ? ` (${t.sourceLocator})` : ''}`],
    ['content hash', t.contentHash],
    ['imported', t.importedAt],
    ...Object.entries(t.meta)
      .filter(([, value]) => value !== null && value !== undefined)
      .map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)] as [string, string]),
  ];
  return rows.flatMap(([key, value]) => textBlock(`${key.padEnd(14)}${key.length >= 14 ? ' ' : ''}${value}`, width));
}

/** Thought, action and observation of one step, in full (with the thought's code-reasoning marks). */
export function stepLines(step: StepRow, width: number, marks: StoredMark[] = []): DisplayLine[] {
  const lines: DisplayLine[] = [];
  const section = (title: string) => {
    if (lines.length) lines.push({text: ''});
    lines.push({text: title, role: 'heading'});
  };
  if (step.intentStage) {
    const names: Record<string, string> = {
      E: 'Exploration',
      I: 'Implementation',
      V: 'Verification',
      O: 'Orchestration',
    };
    let why = '';
    try {
      const r = JSON.parse(step.labellerRule ?? '{}') as {
        rule?: string;
        first_source_edit?: number | null;
        group?: string;
        file_class?: string;
      };
      const rule = RULES[r.rule as keyof typeof RULES] ?? r.rule ?? '';
      why = ` — rule ${rule}; first source edit: ${r.first_source_edit === null || r.first_source_edit === undefined ? 'none' : `step ${r.first_source_edit + 1}`}${r.group ? `; command group ${r.group}` : ''}${r.file_class ? `; file ${r.file_class}` : ''}`;
    } catch {
      why = '';
    }
    lines.push(
      ...textBlock(`Intent: ${names[step.intentStage] ?? step.intentStage}${why}`, width).map(l => ({
        ...l,
        role: 'muted' as const,
      })),
    );
  }
  if (step.corrections)
    lines.push(
      ...textBlock(`Corrected by people (latest first): ${step.corrections} — c corrects`, width).map(l => ({
        ...l,
        role: 'muted' as const,
      })),
    );
  // texts are appended in a loop: a 130,000-line observation spread into push() overflows the stack
  const cut = (shown: string, full: number) => {
    if (full > shown.length)
      lines.push(
        {text: ''},
        {
          text: `… ${formatChars(full - shown.length)} more characters not shown here (deltalens show trajectory ID --json has all of it)`,
          role: 'muted',
        },
      );
  };
  section('Thought');
  // the thought with its code-reasoning spans marked (observations left plain)
  const spans = marks
    .filter(m => m.family !== 'obs' && step.thought && m.span[1] <= step.thought.length)
    .map(m => m.span);
  append(
    lines,
    step.thought
      ? spans.length
        ? markedBlock(step.thought, width, spans)
        : textBlock(step.thought, width)
      : [{text: '(none)', role: 'muted' as const}],
  );
  if (step.thought) cut(step.thought, step.thoughtChars);
  if (marks.length) {
    section(
      `Code reasoning in the thought (${marks.filter(m => m.family !== 'obs').length} marks, ${marks.filter(m => m.family === 'obs').length} observations)`,
    );
    for (const m of marks) {
      const name = m.family === 'obs' ? 'observation' : `${m.family} ${TAXONOMY[m.family].name}`;
      append(
        lines,
        textBlock(`${name} · ${m.kind} (chars ${m.span[0]}–${m.span[1]}): «${m.text}»`, width).map(l => ({
          ...l,
          role: m.family === 'obs' ? ('muted' as const) : ('added' as const),
        })),
      );
      const c = m.claim as {
        text?: string;
        verdict?: string;
        reason?: string;
        evidence?: {pair: number; side: string; trace: number; seq: number; recorded: string} | null;
      } | null;
      if (c?.verdict) {
        const where = c.evidence
          ? ` — pair #${c.evidence.pair} ${c.evidence.side} trace #${c.evidence.trace}${c.evidence.seq >= 0 ? ` step ${c.evidence.seq}` : ''}: ${c.evidence.recorded}`
          : '';
        append(
          lines,
          textBlock(
            `    claim ${c.text}: ${c.verdict.toUpperCase()} (${c.reason})${where}${c.evidence && c.evidence.seq >= 0 ? ' · J opens it in the stepper' : ''}`,
            width,
          ).map(l => ({
            ...l,
            role:
              c.verdict === 'contradicted'
                ? ('removed' as const)
                : c.verdict === 'confirmed'
                  ? ('added' as const)
                  : ('muted' as const),
          })),
        );
      }
    }
  }
  section(`Action${step.tool ? ` · ${step.tool}` : ''}`);
  const action = step.actionText ?? (step.args ? JSON.stringify(step.args, null, 2) : null);
  append(
    lines,
    action
      ? textBlock(action, width, step.tool === 'python' || step.tool === 'run_ipython' ? 'python' : 'bash')
      : [{text: '(none)', role: 'muted' as const}],
  );
  if (step.actionText) cut(step.actionText, step.actionChars);
  section(`Observation${step.observationChars ? ` · ${formatChars(step.observationChars)} chars` : ''}`);
  if (step.observation) {
    const language = observationLanguage(step.actionText, step.observation);
    append(
      lines,
      language === 'diff' ? diffBlock(step.observation, width) : textBlock(step.observation, width, language),
    );
    cut(step.observation, step.observationChars);
  } else {
    lines.push({text: '(none)', role: 'muted'});
  }
  return lines;
}
