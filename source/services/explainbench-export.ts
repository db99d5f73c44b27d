/**
 * Questions written in the ExplainBench dataset layout (pan2013e/explainbench), so questions
 * built here can be answered by ExplainBench's own scripts, and read back by
 * `import --format explainbench` (services/explainbench.ts):
 *
 * - dataset/context/<type>.json (intent types) and <type>__<agent>.json (effect types):
 *   {instance: {…context…, choices: [text…]}}, choices in label order;
 * - dataset/ground_truths/<same name>.json: {instance: {answer: "b"}} (e2e intent),
 *   {before_answer, after_answer} (e2e effect), {answer: ["b"]} (local types), lower case.
 *
 * One question per (type, agent, instance) fits the layout; a second one is left out and named.
 */
import {mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import type {Question} from '../core/questions/model.js';

interface ExportReport {
  files: number;
  questions: number;
  /** left out: another question already holds the slot */
  skipped: string[];
}

function contextFor(q: Question): Record<string, unknown> {
  const c = q.context;
  if (q.type === 'e2e_intent') return {masked_test: c.test};
  if (q.type === 'e2e_effect') return {test_content: c.test};
  return {
    function_code_before_patch: c.function,
    function_parameters_before_patch: c.inputs,
    line: c.line,
    before_or_after: c.timing,
    // not in ExplainBench's own data; kept so the round trip loses nothing
    ...(c.execution !== undefined ? {execution: c.execution} : {}),
  };
}

function truthFor(q: Question): Record<string, unknown> {
  const low = q.answer.map(a => a.toLowerCase());
  if (q.type === 'e2e_intent') return {answer: low[0]};
  if (q.type === 'e2e_effect') return {before_answer: low[0], after_answer: low[1]};
  return {answer: [low[0]]};
}

export function exportExplainBench(questions: Question[], dir: string): ExportReport {
  const files = new Map<
    string,
    {context: Record<string, unknown>; truth: Record<string, unknown>; ids: Map<string, string>}
  >();
  const skipped: string[] = [];
  let count = 0;
  for (const q of questions) {
    const effect = q.type === 'e2e_effect' || q.type === 'local_effect';
    const name = effect ? `${q.type}__${(q.agent ?? `trajectory-${q.trajectory}`).replace(/[/\\]/g, '_')}` : q.type;
    const file = files.get(name) ?? {context: {}, truth: {}, ids: new Map<string, string>()};
    files.set(name, file);
    const other = file.ids.get(q.instance);
    if (other) {
      skipped.push(`${q.id}: ${name} already holds ${q.instance} (${other})`);
      continue;
    }
    file.ids.set(q.instance, q.id);
    const labels = [...q.choices].sort((a, b) => a.label.localeCompare(b.label));
    file.context[q.instance] = {...contextFor(q), choices: labels.map(c => c.text)};
    file.truth[q.instance] = truthFor(q);
    count += 1;
  }
  for (const sub of ['context', 'ground_truths']) mkdirSync(join(dir, 'dataset', sub), {recursive: true});
  for (const [name, f] of files) {
    writeFileSync(join(dir, 'dataset', 'context', `${name}.json`), `${JSON.stringify(f.context, null, 2)}\n`);
    writeFileSync(join(dir, 'dataset', 'ground_truths', `${name}.json`), `${JSON.stringify(f.truth, null, 2)}\n`);
  }
  return {files: files.size * 2, questions: count, skipped};
}
