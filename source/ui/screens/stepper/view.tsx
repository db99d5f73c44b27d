import {append} from '../../../core/arrays.js';
import {Box, Text} from 'ink';
import {fit, oneLine, sanitize, wrapLines} from '../../../core/text/sanitize.js';
import {firstDifference, formatValue} from '../../../core/trace/values.js';
import {describeRef} from '../../../core/trace/delta.js';
import type {SideView, StepperModel, WatchValue} from '../../../services/stepper.js';
import {highlightLine} from '../../highlight.js';
import type {StepperScreen} from './keys.js';
import type {Theme} from '../../theme.js';

export function stepperTitle(model: StepperModel): string {
  const p = model.pair;
  return `#${p.id} ${p.instance} · ${p.label ?? 'patch'} · ${p.test} · ${model.buggy.outcome?.status ?? model.buggy.status} → ${model.patched.outcome?.status ?? model.patched.status}`;
}

export function deltaLine(model: StepperModel): string {
  const d = model.delta;
  if (!d) return 'no delta computed';
  if (d.status === 'none') return `∅ no effect: ${d.reason ?? ''}`;
  if (d.status === 'incomplete') return `incomplete: ${d.reason ?? ''}`;
  return `Δ ${d.kind} in ${d.function}${d.line !== null ? `:${d.line}` : ''} (${d.timing})${model.deltaRow >= 0 ? ` · row ${model.deltaRow + 1}` : ''}`;
}

/** The delta summary (D): what differs, where, with both values and the evidence. */
function summaryLines(model: StepperModel, width: number): string[] {
  const d = model.delta;
  const out: string[] = [];
  const add = (text: string) => append(out, wrapLines(sanitize(text), width));
  add(deltaLine(model));
  if (d) {
    if (d.status === 'found') {
      add(
        `where: ${d.file ?? '-'} line ${d.line ?? '-'}${d.patchedLine !== null && d.patchedLine !== d.line ? ` (patched line ${d.patchedLine})` : ''}, ${d.timing} the line runs`,
      );
      for (const v of d.variables) {
        add(
          `  ${v.name}: buggy ${v.buggy === undefined ? '(unchanged)' : formatValue(v.buggy, 200)} | patched ${v.patched === undefined ? '(unchanged)' : formatValue(v.patched, 200)}`,
        );
        const first = v.buggy !== undefined && v.patched !== undefined ? firstDifference(v.buggy, v.patched) : null;
        if (first?.path)
          add(
            `    first differs at ${v.name}${first.path}: buggy ${differenceSide(first.buggy)} | patched ${differenceSide(first.patched)}`,
          );
      }
      if (d.kind === 'outcome') {
        const fmt = (o: typeof d.buggyOutcome) =>
          !o
            ? '?'
            : o.exception
              ? `raises ${o.exception.type}${o.exception.message ? `: ${o.exception.message}` : ''}`
              : `${o.kind} ${o.value !== undefined ? formatValue(JSON.parse(o.value), 200) : ''}`;
        add(`  buggy frame:   ${fmt(d.buggyOutcome)}`);
        add(`  patched frame: ${fmt(d.patchedOutcome)}`);
        if (d.control)
          add(
            `  control flow split: buggy next ${describeRef(d.control.buggy)} · patched next ${describeRef(d.control.patched)}`,
          );
      }
    }
    add(
      `evidence: ${d.stepsCompared} aligned steps compared in ${d.framesEntered} frames${d.ignoredNondeterministic ? `, ${d.ignoredNondeterministic} nondeterministic differences ignored` : ''}`,
    );
    if (d.reason && d.status === 'found') add(`note: ${d.reason}`);
    add(`options: ${d.options.length ? d.options.join(', ') : "none (the paper's Algorithm 1)"}`);
  }
  const t = (x: StepperModel['buggy']) =>
    `trace #${x.id} ${x.status}, ${x.events} events, ${x.frames} frames, test ${x.outcome?.status ?? '?'}`;
  add(`buggy:   ${t(model.buggy)}`);
  add(`patched: ${t(model.patched)}`);
  const fns = model.pair.changes?.functions ?? [];
  add(`patch-modified functions: ${fns.length ? fns.map(f => `${f.file}:${f.qualname}`).join(', ') : 'none'}`);
  if (model.truncated) add(`the alignment stops at ${model.rows.length} rows (the stepper reads at most that many)`);
  return out;
}

function rowStatus(model: StepperModel, screen: StepperScreen): string {
  const r = model.rows[screen.row];
  if (!r) return 'no rows';
  const here = screen.row === model.deltaRow ? ' · ◆ DELTA POINT' : '';
  return `row ${screen.row + 1}/${model.rows.length} · depth ${r.depth} · ${model.rowWhat(screen.row)}${here}`;
}

/**
 * A side's callers (innermost first, the frame itself left out) in `room` lines; when they do not
 * fit, the hidden ones are counted: in the last line, or beside the only caller shown.
 */
export function stackLines(stack: SideView['stack'], room: number): string[] {
  const callers = stack.slice(1);
  const line = (f: SideView['stack'][number], mark = '↑') => `  ${mark} ${f.fn} ${f.file}:${f.line ?? '-'}`;
  if (callers.length <= room) return callers.map(f => line(f));
  if (room <= 1) return [line(callers[0]!, `↑(+${callers.length - 1})`)];
  const shown = room - 1;
  return [
    ...callers.slice(0, shown).map(f => line(f)),
    `  ↑ … ${callers.length - shown} more caller${callers.length - shown === 1 ? '' : 's'}`,
  ];
}

interface Layout {
  src: number;
  locals: number;
  stack: number;
}

function layout(height: number, watches: number): Layout {
  const rest = Math.max(4, height - 2 - watches);
  const stack = rest >= 14 ? 3 : rest >= 9 ? 2 : 1;
  const src = Math.max(1, Math.floor((rest - stack) * 0.5));
  return {src, locals: Math.max(1, rest - stack - src), stack};
}

function paneTitle(v: SideView, name: string): string {
  if (!v.present) return `${name} · (not started)`;
  const what =
    v.kind === 'call' ? 'call' : v.kind === 'return' ? 'return' : v.kind === 'exception' ? 'raise' : 'line done';
  return `${name}${v.waiting ? ' (waits)' : ''} · ${v.fn} ${v.file}:${v.line ?? '-'} ${what}`;
}

function sourceWindow(v: SideView, rows: number, width: number, color: boolean): string[] {
  if (!v.present || !v.source || v.line === null) return [v.present ? '(source not recorded)' : ''];
  const half = Math.floor(rows / 2);
  const start = Math.max(1, Math.min(v.line - half, v.source.length - rows + 1));
  const out: string[] = [];
  for (let n = start; n < start + rows && n <= v.source.length; n++) {
    const code = sanitize(v.source[n - 1] ?? '').replace(/\t/g, '    ');
    const mark = n === v.line ? '▶' : ' ';
    const num = String(n).padStart(4);
    out.push(`${mark}${num} ${highlightLine(fit(code, Math.max(4, width - 6)), 'python', color)}`);
  }
  return out;
}

function localLines(v: SideView, other: SideView, rows: number, width: number): {text: string; differs: boolean}[] {
  if (!v.present) return [];
  const others = new Map(
    other.present && other.fn === v.fn ? other.locals.map(([k, x]) => [k, JSON.stringify(x)]) : [],
  );
  const lines = v.locals.map(([name, value]) => {
    const differs = others.size > 0 && others.get(name) !== JSON.stringify(value);
    return {
      text: `${differs ? '≠' : ' '}${name} = ${oneLine(formatValue(value, width * 2), Math.max(4, width - name.length - 4))}`,
      differs,
    };
  });
  lines.sort((a, b) => Number(b.differs) - Number(a.differs));
  if (lines.length > rows)
    return [...lines.slice(0, rows - 1), {text: ` … ${lines.length - rows + 1} more`, differs: false}];
  return lines;
}

/** Both sides' locals with their whole values (wrapped), the differing ones first. */
export function expandedLines(
  view: {b: SideView; p: SideView},
  width: number,
): {text: string; differs: boolean; head: boolean}[] {
  const out: {text: string; differs: boolean; head: boolean}[] = [];
  for (const [v, other, name] of [
    [view.b, view.p, 'buggy'],
    [view.p, view.b, 'patched'],
  ] as const) {
    out.push({text: fit(paneTitle(v, name), width), differs: false, head: true});
    if (!v.present) continue;
    if (!v.recorded)
      out.push({text: '  (values not recorded here: trace with --values all)', differs: false, head: false});
    const others = new Map(
      other.present && other.fn === v.fn ? other.locals.map(([k, x]) => [k, JSON.stringify(x)]) : [],
    );
    const locals = v.locals.map(([k, x]) => ({k, x, differs: others.size > 0 && others.get(k) !== JSON.stringify(x)}));
    locals.sort((a, b) => Number(b.differs) - Number(a.differs));
    if (v.result !== undefined) out.push({text: fit(` ⏎ ${sanitize(v.result)}`, width), differs: false, head: false});
    for (const l of locals) {
      // in a large value the difference can lie past what is shown: its path, and both values there
      if (l.differs && name === 'buggy' && others.has(l.k)) {
        const d = firstDifference(l.x, JSON.parse(others.get(l.k)!) as unknown);
        if (d?.path)
          out.push({
            text: fit(
              sanitize(
                ` ≠ ${l.k}${d.path} first differs: buggy ${differenceSide(d.buggy)} · patched ${differenceSide(d.patched)}`,
              ),
              width,
            ),
            differs: true,
            head: false,
          });
      }
      const lines = wrapLines(
        sanitize(`${l.differs ? '≠' : ' '} ${l.k} = ${formatValue(l.x, 4000)}`),
        Math.max(10, width - 2),
      );
      lines.forEach((t, i) => out.push({text: `${i ? '    ' : ' '}${t}`, differs: l.differs, head: false}));
    }
  }
  return out;
}

function fmtWatch(x: {value?: unknown; error?: string} | undefined): string {
  if (!x) return '—';
  return x.error !== undefined ? `! ${x.error}` : formatValue(x.value, 80);
}

export function StepperBody({
  model,
  screen,
  view,
  watches,
  width,
  height,
  theme,
}: {
  model: StepperModel;
  screen: StepperScreen;
  view: {b: SideView; p: SideView};
  watches: WatchValue[];
  width: number;
  height: number;
  theme: Theme;
}) {
  if (model.rows.length === 0 || screen.summary) {
    const lines = summaryLines(model, width);
    if (model.rows.length === 0)
      lines.unshift('Nothing was recorded on either side: no traced function ran (see the evidence below).');
    return (
      <Box flexDirection="column" height={height}>
        {lines.slice(0, height).map((l, i) => (
          <Text key={i} wrap="truncate-end" bold={i === 0}>
            {l}
          </Text>
        ))}
      </Box>
    );
  }
  if (screen.expanded) {
    const lines = expandedLines(view, width);
    const room = Math.max(1, height - 1);
    const shown =
      lines.length > room
        ? [
            ...lines.slice(0, room - 1),
            {
              text: `… ${lines.length - room + 1} more lines (the full values: deltalens steps ${model.pair.id} --json)`,
              differs: false,
              head: false,
            },
          ]
        : lines;
    return (
      <Box flexDirection="column" height={height}>
        <Text wrap="truncate-end" color={theme.accent}>
          {fit(`values in full (e: back to the panes) · ${rowStatus(model, screen)}`, width)}
        </Text>
        {shown.map((l, i) => (
          <Text key={i} wrap="truncate-end" bold={l.head} color={l.differs ? theme.warn : undefined}>
            {l.text}
          </Text>
        ))}
      </Box>
    );
  }
  const paneW = Math.floor((width - 1) / 2);
  const shownWatches = watches.slice(-4);
  const l = layout(height, shownWatches.length);
  const row = model.rows[screen.row];
  const srcB = sourceWindow(view.b, l.src, paneW, theme.color);
  const srcP = sourceWindow(view.p, l.src, paneW, theme.color);
  const locB = localLines(view.b, view.p, l.locals, paneW);
  const locP = localLines(view.p, view.b, l.locals, paneW);
  const stackText = (v: SideView) => stackLines(v.stack, l.stack);
  const pane = (which: 'b' | 'p') => {
    const v = which === 'b' ? view.b : view.p;
    const src = which === 'b' ? srcB : srcP;
    const loc = which === 'b' ? locB : locP;
    const dim =
      v.waiting ||
      (row && ((which === 'b' && row.kind === 'patched-only') || (which === 'p' && row.kind === 'buggy-only')));
    return (
      <Box flexDirection="column" width={paneW}>
        <Text bold wrap="truncate-end" color={dim ? theme.muted : which === 'b' ? theme.bad : theme.good}>
          {fit(paneTitle(v, which === 'b' ? 'buggy' : 'patched'), paneW)}
        </Text>
        <Box flexDirection="column" height={l.src}>
          {src.map((s, i) => (
            <Text key={i} wrap="truncate-end" color={dim ? theme.muted : undefined}>
              {s}
            </Text>
          ))}
        </Box>
        <Box flexDirection="column" height={l.locals}>
          {!v.recorded && v.present ? (
            <Text color={theme.muted} wrap="truncate-end">
              {fit('(values not recorded here: trace with --values all)', paneW)}
            </Text>
          ) : null}
          {v.result !== undefined ? (
            <Text wrap="truncate-end" bold>
              {fit(`⏎ ${v.result}`, paneW)}
            </Text>
          ) : v.recorded && v.present && loc.length === 0 ? (
            <Text color={theme.muted}>(no locals)</Text>
          ) : null}
          {loc.map((x, i) => (
            <Text
              key={i}
              wrap="truncate-end"
              color={x.differs ? theme.warn : undefined}
              bold={x.differs && !theme.color}
            >
              {x.text}
            </Text>
          ))}
        </Box>
        <Box flexDirection="column" height={l.stack}>
          {stackText(v).map((s, i) => (
            <Text key={i} wrap="truncate-end" color={theme.muted}>
              {fit(s, paneW)}
            </Text>
          ))}
        </Box>
      </Box>
    );
  };
  const status = screen.message ? `${rowStatus(model, screen)} · ${screen.message}` : rowStatus(model, screen);
  return (
    <Box flexDirection="column" height={height}>
      <Text
        wrap="truncate-end"
        color={screen.row === model.deltaRow ? theme.warn : theme.accent}
        bold={screen.row === model.deltaRow}
      >
        {fit(status, width)}
      </Text>
      <Box>
        {pane('b')}
        <Text color={theme.muted}>│</Text>
        {pane('p')}
      </Box>
      {shownWatches.map((w, i) => (
        <Text key={i} wrap="truncate-end">
          <Text bold>{`x ${oneLine(w.expr, 24)}`}</Text>
          <Text color={theme.muted}>
            {w.source === 'recorded' ? ' [recorded] ' : w.source === 'live' ? ' [live re-run] ' : ' [—] '}
          </Text>
          {w.source === 'unavailable' ? (
            <Text color={theme.muted}>{oneLine(w.note, width)}</Text>
          ) : (
            oneLine(`buggy ${fmtWatch(w.buggy)} | patched ${fmtWatch(w.patched)}`, width)
          )}
        </Text>
      ))}
    </Box>
  );
}

/** One side's value where two values first differ (absent: the other side has something there). */
function differenceSide(x: unknown): string {
  return x === undefined ? '(not there)' : formatValue(x, 120);
}
