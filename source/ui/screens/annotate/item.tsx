/**
 * What annotate and adjudicate show of an item (ExplainBench §5.4, Fig. 4): a reading pane (the
 * explanation and the context) that scrolls above the question block, which stays on screen.
 */
import {Box, Text} from 'ink';
import {labelOf} from '../../../core/questions/annotation.js';
import {wrapLines} from '../../../core/text/sanitize.js';
import type {BlindItem, ConflictItem} from '../../../services/annotation.js';
import {TextView} from '../../components/text-view.js';
import {textBlock, type DisplayLine} from '../../display-lines.js';
import type {Theme} from '../../theme.js';

/** Context entries the question points into (a local question's `line`): kept on screen with the
 * question, not in the reading pane that scrolls away. */
const PINNED_CONTEXT = new Set(['line', 'call']);

function contextLines(context: Record<string, unknown>, width: number, pinned = false): DisplayLine[] {
  const out: DisplayLine[] = [];
  for (const [k, v] of Object.entries(context)) {
    if (PINNED_CONTEXT.has(k) !== pinned) continue;
    const text = typeof v === 'string' ? v : JSON.stringify(v, null, 1);
    out.push(
      ...textBlock(
        `${k}: ${text}`,
        width,
        k.includes('code') || k.includes('patch') || k.includes('line') ? 'python' : 'plain',
      ),
    );
  }
  return out.length || pinned ? out : [{text: '(none)', role: 'muted'}];
}

/** What a person reads to answer (scrolls): the explanation and the context. */
export function readingLines(v: BlindItem, width: number): DisplayLine[] {
  return [
    // who else labelled it (a team's labels included), never what they answered
    ...(v.others.length
      ? wrapLines(`Also labelled by ${v.others.join(', ')} (their answers are not shown)`, width).map(text => ({
          text,
          role: 'muted' as const,
        }))
      : []),
    {text: `Explanation (${v.agent ?? 'unknown agent'}'s)`, role: 'heading'},
    ...wrapLines(v.explanationText || '(empty)', width).map(text => ({text})),
    {text: ''},
    {text: 'Context', role: 'heading'},
    ...contextLines(v.context, width),
  ];
}

/** The question and its choices (always on screen, under the reading). */
export function questionBlock(v: BlindItem, width: number): DisplayLine[] {
  return [
    {text: `Question (${v.type})`, role: 'heading'},
    ...contextLines(v.context, width, true),
    ...textBlock(v.text, width),
    ...v.choices.flatMap(c => textBlock(`  ${c.label}. ${c.text}`, width)),
  ];
}

/** A reading pane that scrolls above a fixed question block, within `height` rows. */
function ItemView({
  reading,
  fixed,
  scroll,
  height,
  theme,
}: {
  reading: DisplayLine[];
  fixed: DisplayLine[];
  scroll: number;
  height: number;
  theme: Theme;
}) {
  const fixedRows = Math.min(fixed.length, Math.max(3, height - 4));
  const readRows = Math.max(1, height - fixedRows - 1);
  const more = reading.length > scroll + readRows;
  return (
    <Box flexDirection="column" height={height}>
      <TextView lines={reading} scroll={scroll} height={readRows} theme={theme} />
      <Text color={theme.muted} wrap="truncate-end">
        {more ? `── ${reading.length - scroll - readRows} more line(s): PgDn / j ──` : '─'.repeat(20)}
      </Text>
      <TextView lines={fixed} scroll={0} height={fixedRows} theme={theme} />
    </Box>
  );
}

/** Under the header: which item, the item (reading pane over the question block), a message line and the prompt. */
export function ItemFrame(p: {
  view: BlindItem | null;
  missing: boolean;
  reading: DisplayLine[];
  fixed: DisplayLine[];
  scroll: number;
  height: number;
  message: string | null;
  prompt: string;
  theme: Theme;
}) {
  return (
    <>
      <Text wrap="truncate-end" bold>
        {p.view
          ? `${p.view.instance} · ${p.view.question} · explanation #${p.view.explanation}`
          : p.missing
            ? 'this item is no longer in the database'
            : ' '}
      </Text>
      {p.view ? (
        <ItemView reading={p.reading} fixed={p.fixed} scroll={p.scroll} height={p.height} theme={p.theme} />
      ) : (
        <Box height={p.height} />
      )}
      <Text wrap="truncate-end" color={p.theme.warn}>
        {p.message ?? ' '}
      </Text>
      <Text wrap="truncate-end" inverse={!p.theme.color} color={p.theme.accent}>
        {p.prompt}
      </Text>
    </>
  );
}

/** Every label with its rationale and every model's answers (Fig. 4); the key only on v. */
export function conflictLines(c: ConflictItem, v: BlindItem, width: number, showKey: boolean): DisplayLine[] {
  const lines: DisplayLine[] = [{text: `People's labels (${c.labels.length})`, role: 'heading'}];
  for (const l of c.labels)
    lines.push(
      ...textBlock(
        `  ${l.annotator.padEnd(14)} ${labelOf(l.letters).padEnd(5)} ${l.rationale ? `“${l.rationale}”` : '(no rationale)'}${l.seconds !== null ? ` · ${Math.round(l.seconds)} s` : ''}`,
        width,
      ),
    );
  lines.push({text: ''}, {text: 'QA models', role: 'heading'});
  if (!c.models.length) lines.push({text: '  no model answers stored for this item', role: 'muted'});
  for (const x of c.models)
    lines.push(
      ...textBlock(`  ${x.model.padEnd(24)} majority ${x.majority ?? 'tie'} · samples ${x.samples.join(' ')}`, width),
    );
  lines.push(
    {text: ''},
    showKey
      ? {text: `Answer key: ${c.key.join(' → ')}`, role: 'heading'}
      : {text: 'Answer key hidden (v shows it)', role: 'muted'},
  );
  if (c.adjudicated)
    lines.push({
      text: `Adjudicated by ${c.adjudicated.adjudicator}: ${c.adjudicated.letters.join(' → ')}${c.adjudicated.note ? ` — ${c.adjudicated.note}` : ''}`,
      role: 'muted',
    });
  return [...lines, {text: ''}, ...readingLines(v, width)];
}
