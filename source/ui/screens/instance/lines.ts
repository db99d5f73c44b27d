/**
 * An instance as display lines: its record, its tests, and what the store holds about it (runs,
 * traced pairs with their deltas, questions). No Ink here.
 */
import {oneLine} from '../../../core/text/sanitize.js';
import {diffBlock, textBlock, type DisplayLine} from '../../display-lines.js';
import type {InstanceData} from '../../data/instances.js';

export function instanceLines(v: InstanceData, width: number): DisplayLine[] {
  const d = v.detail;
  const out: DisplayLine[] = [];
  const heading = (text: string) => out.push({text: ''}, {text, role: 'heading'});
  const line = (text: string, role?: DisplayLine['role']) =>
    out.push({text: oneLine(text, width), ...(role ? {role} : {})});
  // what the record says of the repository (nothing when there is no record: the next line says so)
  if (d.repo || d.baseCommit)
    line(
      `${d.repo ?? 'repository not named'}${d.baseCommit ? ` at ${d.baseCommit}` : ' (no base commit)'}${d.version ? ` · version ${d.version}` : ''}${d.createdAt ? ` · ${d.createdAt}` : ''}`,
    );
  if (!d.hasRecord) line('no dataset record (deltalens instances import FILE)', 'muted');
  if (d.environmentSetupCommit) line(`environment set up at ${d.environmentSetupCommit}`, 'muted');
  heading(`FAIL_TO_PASS (${d.failToPass.length})`);
  for (const t of d.failToPass) line(`· ${t}`);
  if (d.passToPass.length) line(`PASS_TO_PASS: ${d.passToPass.length} tests`, 'muted');
  heading(`Runs (${v.runs.length}) — T lists them`);
  for (const r of v.runs)
    line(
      `#${r.id}  ${r.agent}  ${r.resolved === null ? '?' : r.resolved ? 'resolved' : 'unresolved'}  ${r.format === 'prediction' ? 'prediction (no steps)' : `${r.steps} steps`}`,
    );
  if (!v.runs.length) line('none', 'muted');
  heading(`Traced pairs (${v.pairs.length}) — t lists them`);
  for (const p of v.pairs) line(`#${p.id}  ${p.delta} · ${p.label ?? 'no label'} · ${p.test}`);
  if (!v.pairs.length) line(`none (deltalens trace --instance ${d.id} --repo CLONE --gold)`, 'muted');
  heading(`Questions (${v.questions.length})`);
  for (const q of v.questions) line(`${q.id}  ${q.type}${q.agent ? `  ${q.agent}` : ''}`);
  if (!v.questions.length) line('none', 'muted');
  if (v.exclusions.length) {
    heading(`Not built (${v.exclusions.length}) — the latest questions build said why`);
    for (const e of v.exclusions)
      out.push(
        ...textBlock(
          `${e.stage}${e.agent ? ` (${e.agent})` : ''}, ${e.created_at.slice(0, 16).replace('T', ' ')}: ${e.reason}`,
          width,
        ),
      );
  }
  if (d.problemStatement) {
    heading('Problem statement');
    out.push(...textBlock(d.problemStatement.trimEnd(), width));
  }
  if (d.hintsText?.trim()) {
    heading('Hints');
    out.push(...textBlock(d.hintsText.trimEnd(), width));
  }
  if (d.goldPatch) {
    heading('Gold patch');
    out.push(...diffBlock(d.goldPatch, width));
  }
  if (d.testPatch) {
    heading('Test patch');
    out.push(...diffBlock(d.testPatch, width));
  }
  return out;
}
