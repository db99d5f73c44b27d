import {formatValue} from '../core/trace/values.js';
import {describeRef, type DeltaResult} from '../core/trace/delta.js';
import type {Landing} from '../core/trace/landing.js';
import type {OutcomeRecord} from '../core/trace/records.js';
import type {TraceRow} from '../store/traces.js';

export function testOutcomeJson(o: OutcomeRecord | null) {
  if (!o) return null;
  const failed = o.tests.find(t => t.outcome === 'failed' || t.outcome === 'error');
  return {
    status: o.status,
    ...(failed ? {exception: failed.exc_type ?? null, message: failed.message ?? null, line: failed.line ?? null} : {}),
    ...(o.error ? {error: o.error} : {}),
  };
}

/** The delta as `deltalens trace --json` and `deltalens delta --json` print it. */
export function deltaJson(
  d: DeltaResult & {id?: number},
  buggy: TraceRow | null,
  patched: TraceRow | null,
  extra: Record<string, unknown> = {},
) {
  return {
    status: d.status,
    kind: d.status === 'none' ? 'none' : d.kind,
    function: d.function,
    file: d.file,
    line: d.line,
    patched_line: d.patchedLine,
    timing: d.timing,
    variables: d.variables.map(v => ({
      name: v.name,
      buggy: v.buggy ?? null,
      patched: v.patched ?? null,
      ...(v.unchangedOn ? {unchanged_on: v.unchangedOn} : {}),
    })),
    buggy_outcome: testOutcomeJson(buggy?.outcome ?? null),
    patched_outcome: testOutcomeJson(patched?.outcome ?? null),
    ...(d.kind === 'outcome'
      ? {frame_outcomes: {buggy: d.buggyOutcome ?? null, patched: d.patchedOutcome ?? null}, control: d.control ?? null}
      : {}),
    reason: d.reason ?? null,
    evidence: {
      steps_compared: d.stepsCompared,
      frames_entered: d.framesEntered,
      ignored_nondeterministic: d.ignoredNondeterministic,
    },
    options: d.options,
    seq_b: d.seqB,
    seq_p: d.seqP,
    delta_id: d.id ?? null,
    traces: {buggy: buggy?.id ?? null, patched: patched?.id ?? null},
    events: {buggy: buggy?.events ?? null, patched: patched?.events ?? null},
    trace_status: {buggy: buggy?.status ?? 'missing', patched: patched?.status ?? 'missing'},
    ...extra,
  };
}

function outcomeLine(o: OutcomeRecord | null): string {
  const j = testOutcomeJson(o);
  if (!j) return 'no outcome';
  return `test ${j.status}${'exception' in j && j.exception ? ` (${j.exception}${j.line ? ` at line ${j.line}` : ''})` : ''}${j.error ? `: ${j.error}` : ''}`;
}

export function describeDelta(d: DeltaResult, buggy: TraceRow | null, patched: TraceRow | null): string {
  const lines: string[] = [];
  if (d.status === 'none') {
    lines.push(`delta: ∅ — the patch has no effect on this test (${d.reason})`);
  } else if (d.status === 'incomplete') {
    lines.push(`delta: not computed — ${d.reason}`);
  } else {
    const where = `${d.function} (${d.file ?? '-'}${d.line !== null ? `:${d.line}` : ''}${d.patchedLine !== null && d.patchedLine !== d.line ? ` ↔ patched :${d.patchedLine}` : ''}, ${d.timing} the line)`;
    lines.push(`delta: ${d.kind} difference in ${where}`);
    for (const v of d.variables) {
      lines.push(
        `  ${v.name}: buggy ${v.buggy === undefined ? '(unchanged)' : formatValue(v.buggy, 120)}  →  patched ${v.patched === undefined ? '(unchanged)' : formatValue(v.patched, 120)}`,
      );
    }
    if (d.kind === 'outcome') {
      const fmt = (o: DeltaResult['buggyOutcome']) =>
        !o
          ? '?'
          : o.exception
            ? `raises ${o.exception.type}${o.exception.message ? `: ${o.exception.message}` : ''}`
            : `${o.kind} ${o.value !== undefined ? formatValue(JSON.parse(o.value), 120) : ''}`;
      lines.push(`  buggy:   ${fmt(d.buggyOutcome)}`);
      lines.push(`  patched: ${fmt(d.patchedOutcome)}`);
      if (d.control)
        lines.push(
          `  control flow split: next, the buggy side runs ${describeRef(d.control.buggy)}; the patched side ${describeRef(d.control.patched)}`,
        );
    }
    if (d.reason) lines.push(`  (${d.reason})`);
  }
  lines.push(
    `buggy:   trace #${buggy?.id ?? '-'} ${buggy?.status ?? 'missing'}, ${buggy?.events ?? 0} events, ${outcomeLine(buggy?.outcome ?? null)}`,
  );
  lines.push(
    `patched: trace #${patched?.id ?? '-'} ${patched?.status ?? 'missing'}, ${patched?.events ?? 0} events, ${outcomeLine(patched?.outcome ?? null)}`,
  );
  if (d.options.length) lines.push(`options: ${d.options.join(', ')}`);
  return lines.join('\n');
}

/** Where a delta landed, said in one line (core/trace/landing.ts). */
export function whereLine(w: Landing, fn: string | null): string {
  const passes = w.caller ? ` — the arguments it passes to ${fn}` : '';
  switch (w.kind) {
    case 'changed function':
      return `where: in ${w.target}, which the patch changed${passes}`;
    case 'reads a changed name':
      return `where: in ${w.caller ?? fn}, which reads ${w.target}, changed by the patch at module or class level${passes}`;
    case 'calls an added function':
      return `where: at the call of ${w.target}, which the patch adds (the buggy side has no such frame)`;
    case 'elsewhere':
      return 'where: outside the functions the patch changed (its effect reached here through calls, or values differ for another reason)';
    default:
      return '';
  }
}
