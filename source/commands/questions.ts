import {terminalSafeJson} from '../core/text/sanitize.js';
import {cell, say, warn} from './output.js';
import {writeFileSync} from 'node:fs';
import {resolve} from 'node:path';
import {
  QUESTION_TYPES,
  QuestionError,
  questionRecord,
  validateQuestion,
  type Question,
  type QuestionType,
} from '../core/questions/model.js';
import {
  ensureExplanation,
  insertQuestion,
  listExplanations,
  listQuestions,
  rejectedQuestions,
  reviewStatus,
} from '../store/questions.js';
import {writeTx} from '../store/db.js';
import {readLines} from '../services/text-file.js';
import {FormatError} from '../core/trajectory/model.js';
import {openStore} from './db-path.js';
import {runQuestionsBuild} from './questions-build.js';
import {runQuestionsReview} from './questions-review.js';
import {exportExplainBench} from '../services/explainbench-export.js';
import {ExplainBenchError, readExplainBenchQuestions} from '../services/explainbench.js';
import {compareQuestions, type Comparison} from '../core/questions/compare.js';
import {COMMON_OPTIONS, EXIT, oneOf, parse, printJson, UsageError} from './args.js';

export const QUESTIONS_HELP = `Usage: deltalens questions build --instance ID … | --all DIR   (see questions build --help)
       deltalens questions import FILE [--db FILE] [--json]
       deltalens questions export [--type T] [--instance I] FILE [--db FILE]
       deltalens questions export --format explainbench [--type T] [--instance I] DIR [--db FILE]
       deltalens questions list [--type T] [--instance I] [--json] [--db FILE]
       deltalens questions review ID (--accept | --reject) [--note TEXT]   (see questions review --help)
       deltalens questions edit ID [--file FILE]     a built question, re-validated before it is saved
       deltalens questions compare --explainbench DIR [--type T] [--instance I] [--json] [--db FILE]

Questions in the JSONL interchange format, one per line:
  {"id", "instance", "type": "e2e_intent" | "e2e_effect" | "local_intent" | "local_effect",
   "trajectory"?: run id, "agent"?: name   (effect types: whose patch; one of the two),
   "context": {...}, "question": text,
   "choices": [{"label": "A", "text", "role": "correct" | "distractor" | "insufficient" | "no_effect"}],
   "answer": "B"  (end-to-end effect: ["before", "after"])}
Every question has exactly one "insufficient" choice; local_effect also one "no_effect".
import checks every line first and stores nothing if any line is wrong (the error names the
line and the field); importing the same id again replaces that question.
list --json prints [{"id", "instance", "type", "agent", "review"}] (agent for effect types;
review: the latest review of a built question — accepted, rejected, edited, rebuilt — or null).
Both exports leave out built questions an author rejected (and say how many).
export --format explainbench writes ExplainBench's dataset layout (dataset/context and
dataset/ground_truths, one file per type and, for effect types, per agent), which
import --format explainbench DIR reads back; one question per type, agent and instance fits it.
compare puts each question built here (questions build) beside the package's question of the
same instance, type and — for effect types — agent (build with --agent-patch NAME=FILE using the
package's agent names to match them): for local types the delta point (the function defined in
the context, the line, the timing), for all the key and the options both have; totals per type.
--json prints {"rows": [{"instance", "type", "agent", "ours", "theirs", "point": {"ours",
"theirs": {"function", "line", "timing"}, "same_function", "same_line", "same_timing"} | null,
"key": {"ours", "theirs", "same"}, "choices": {"ours", "theirs", "shared"}}], "totals":
{TYPE: {"compared", "same_key", "same_function", "same_line", "shared_choices"}}, "unmatched":
[{"id", "reason"}]}.`;

export const EXPLANATIONS_HELP = `Usage: deltalens explanations list [--json] [--db FILE]
       deltalens explanations import FILE [--db FILE]

import reads JSONL lines {"instance", "agent", "kind": "original" | "audited" | "custom", "text"}
(e.g. the explanation texts the public ExplainBench data leaves out) and fills or adds them.

Every explanation: [{"id", "instance", "agent", "kind": original | audited | blank | custom,
"length", "has_text", "trajectory", "source"}]. An explanation a source names but whose text it
lacks (the public ExplainBench results) is listed with has_text false and length 0.`;

function readQuestions(path: string): Question[] {
  const out: Question[] = [];
  const ids = new Map<string, number>();
  for (const raw of readLines(path, 64 * 1024 * 1024)) {
    if (!raw.text.trim()) continue;
    let obj: unknown;
    try {
      obj = JSON.parse(raw.text);
    } catch (e) {
      throw new FormatError(`invalid JSON: ${(e as Error).message}`, {path, line: raw.line});
    }
    try {
      const q = validateQuestion(obj);
      if (ids.has(q.id)) throw new QuestionError(`duplicate id "${q.id}" (also line ${ids.get(q.id)})`, 'id');
      ids.set(q.id, raw.line);
      out.push(q);
    } catch (e) {
      if (e instanceof QuestionError) throw new FormatError(`${e.field}: ${e.message}`, {path, line: raw.line});
      throw e;
    }
  }
  return out;
}

export async function runQuestions(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'build') return runQuestionsBuild(rest);
  if (sub === 'review' || sub === 'edit') return runQuestionsReview(sub, rest);
  const {values, positionals} = parse(rest, {
    ...COMMON_OPTIONS,
    type: {type: 'string'},
    instance: {type: 'string'},
    format: {type: 'string'},
    explainbench: {type: 'string'},
  });
  if (values.help || sub === '--help' || sub === '-h' || sub === undefined) {
    say(QUESTIONS_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  const type = oneOf(values.type, QUESTION_TYPES, '--type') as QuestionType | undefined;
  if (sub === 'import') {
    if (positionals.length !== 1) throw new UsageError('questions import takes one FILE');
    const dbPath = resolve(values.db ?? 'deltalens.db');
    let questions: Question[];
    try {
      questions = readQuestions(resolve(positionals[0]!));
    } catch (e) {
      if (e instanceof FormatError) {
        warn(`deltalens: ${positionals[0]}: ${e.describe()} (nothing imported)`);
        return EXIT.failed;
      }
      throw e;
    }
    const {db} = await openStore(dbPath, 'create');
    try {
      writeTx(db, () => questions.forEach(q => insertQuestion(db, q, {source: resolve(positionals[0]!)})));
    } finally {
      db.close();
    }
    const byType = Object.fromEntries(QUESTION_TYPES.map(t => [t, questions.filter(q => q.type === t).length]));
    if (values.json) printJson({imported: questions.length, by_type: byType, db: dbPath});
    else
      say(
        `imported ${questions.length} questions (${QUESTION_TYPES.map(t => `${byType[t]} ${t}`).join(', ')}) → ${dbPath}`,
      );
    return EXIT.ok;
  }
  const {db} = await openStore(values.db, 'read');
  // a question its author rejected is not handed on
  const kept = (qs: Question[]) => {
    const rejected = rejectedQuestions(db);
    const out = qs.filter(q => !rejected.has(q.id));
    if (out.length < qs.length)
      warn(`deltalens: left out ${qs.length - out.length} rejected question(s) (questions review)`);
    return out;
  };
  try {
    if (sub === 'export') {
      const format = oneOf(values.format ?? 'jsonl', ['jsonl', 'explainbench'] as const, '--format');
      if (format === 'explainbench') {
        if (positionals.length !== 1 || positionals[0] === '-')
          throw new UsageError('questions export --format explainbench takes one DIR');
        const r = exportExplainBench(
          kept(listQuestions(db, {type, instance: values.instance})),
          resolve(positionals[0]!),
        );
        for (const s of r.skipped) warn(`deltalens: left out ${s}`);
        if (values.json)
          printJson({exported: r.questions, files: r.files, skipped: r.skipped, dir: resolve(positionals[0]!)});
        else
          say(
            `exported ${r.questions} questions in the ExplainBench layout (${r.files} files under ${positionals[0]}/dataset)${r.skipped.length ? `; ${r.skipped.length} left out (one question per type, agent and instance)` : ''}`,
          );
        return EXIT.ok;
      }
      if (positionals.length !== 1) throw new UsageError('questions export takes one FILE (use - for stdout)');
      const lines = kept(listQuestions(db, {type, instance: values.instance})).map(q =>
        JSON.stringify(questionRecord(q)),
      );
      const text = lines.length ? `${lines.join('\n')}\n` : '';
      if (positionals[0] === '-') process.stdout.write(terminalSafeJson(text));
      else {
        writeFileSync(resolve(positionals[0]!), text);
        warn(`exported ${lines.length} questions to ${positionals[0]}`);
      }
      return EXIT.ok;
    }
    if (sub === 'compare') {
      if (!values.explainbench)
        throw new UsageError('questions compare takes --explainbench DIR (a checkout of pan2013e/explainbench)');
      if (positionals.length)
        throw new UsageError(`questions compare takes no positional argument (got "${positionals[0]}")`);
      let theirs;
      try {
        theirs = readExplainBenchQuestions(resolve(values.explainbench)).questions.map(x => x.question);
      } catch (e) {
        if (e instanceof ExplainBenchError) {
          warn(`deltalens: ${e.message}`);
          return EXIT.failed;
        }
        throw e;
      }
      const ours = listQuestions(db, {type, instance: values.instance}).filter(q =>
        q.id.startsWith(`${q.instance}/built/`),
      );
      if (!ours.length) {
        warn(
          `deltalens: no built questions${values.instance ? ` of ${values.instance}` : ''}${type ? ` of type ${type}` : ''} in ${db.name} (questions build makes them)`,
        );
        return EXIT.failed;
      }
      const c = compareQuestions(ours, theirs);
      if (values.json) printJson(c);
      else printComparison(c);
      return EXIT.ok;
    }
    if (sub === 'list') {
      const status = reviewStatus(db);
      const rows = listQuestions(db, {type, instance: values.instance}).map(q => ({
        id: q.id,
        instance: q.instance,
        type: q.type,
        agent: q.agent,
        trajectory: q.trajectory,
        review: status.get(q.id)?.action ?? null,
      }));
      if (values.json) printJson(rows);
      else {
        for (const r of rows)
          say(
            `${r.type.padEnd(13)} ${cell(r.instance).padEnd(28)} ${cell(r.agent).padEnd(40)} ${(r.review ?? '').padEnd(9)} ${cell(r.id)}`,
          );
        say(`${rows.length} questions`);
      }
      return EXIT.ok;
    }
    throw new UsageError(`questions takes build, import, export, list, compare, review or edit (got "${sub}")`);
  } finally {
    db.close();
  }
}

export async function runExplanations(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'import') return importExplanations(rest);
  const {values} = parse(rest, {...COMMON_OPTIONS}, false);
  if (values.help || sub === '--help' || sub === '-h') {
    say(EXPLANATIONS_HELP);
    return EXIT.ok;
  }
  if (sub === 'import') return importExplanations(rest);
  if (sub !== 'list') throw new UsageError('explanations takes list or import');
  const {db} = await openStore(values.db, 'read');
  try {
    const rows = listExplanations(db).map(e => ({
      id: e.id,
      instance: e.instance,
      agent: e.agent,
      kind: e.kind,
      length: e.length,
      has_text: e.hasText,
      trajectory: e.trajectory,
      source: e.source,
    }));
    if (values.json) printJson(rows);
    else {
      for (const r of rows)
        say(
          `${String(r.id).padStart(5)} ${cell(r.instance).padEnd(28)} ${cell(r.agent).padEnd(40)} ${r.kind.padEnd(9)} ${r.has_text ? `${r.length} chars` : '(text not in its source)'}`,
        );
      say(`${rows.length} explanations`);
    }
  } finally {
    db.close();
  }
  return EXIT.ok;
}

async function importExplanations(argv: string[]): Promise<number> {
  const {values, positionals} = parse(argv, {...COMMON_OPTIONS});
  if (values.help) {
    say(EXPLANATIONS_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError('explanations import takes one FILE');
  const rows: {instance: string; agent: string; kind: 'original' | 'audited' | 'custom'; text: string}[] = [];
  try {
    for (const raw of readLines(resolve(positionals[0]!), 64 * 1024 * 1024)) {
      if (!raw.text.trim()) continue;
      let o: Record<string, unknown>;
      try {
        o = JSON.parse(raw.text) as Record<string, unknown>;
      } catch (e) {
        throw new FormatError(`invalid JSON: ${(e as Error).message}`, {line: raw.line});
      }
      for (const field of ['instance', 'agent', 'text'] as const) {
        if (typeof o[field] !== 'string' || (field !== 'text' && !(o[field] as string).trim()))
          throw new FormatError(`"${field}" must be a string`, {line: raw.line});
      }
      const kind = (o.kind ?? 'original') as string;
      if (!['original', 'audited', 'custom'].includes(kind))
        throw new FormatError(`"kind" must be original, audited or custom`, {line: raw.line});
      rows.push({
        instance: o.instance as string,
        agent: o.agent as string,
        kind: kind as 'original',
        text: o.text as string,
      });
    }
  } catch (e) {
    if (e instanceof FormatError) {
      warn(`deltalens: ${positionals[0]}: ${e.describe()} (nothing imported)`);
      return EXIT.failed;
    }
    throw e;
  }
  const {db, path: dbPath} = await openStore(values.db, 'create');
  try {
    writeTx(db, () => rows.forEach(r => ensureExplanation(db, {...r, source: resolve(positionals[0]!)})));
  } finally {
    db.close();
  }
  say(`imported ${rows.length} explanations → ${dbPath}`);
  return EXIT.ok;
}

function printComparison(c: Comparison): void {
  const pct = (n: number, of: number) => (of ? `${n} of ${of} (${Math.round((100 * n) / of)} %)` : '—');
  const same = (b: boolean) => (b ? 'same' : 'differs');
  for (const r of c.rows) {
    say(`${cell(r.instance)}  ${r.type}${r.agent ? `  ${cell(r.agent)}` : ''}`);
    if (r.point) {
      const side = (p: {function: string | null; line: string | null; timing: string | null}) =>
        `${cell(p.function ?? '?')} · ${cell(p.line ?? '?').slice(0, 60)} · ${p.timing ?? '?'}`;
      say(`  delta point  ours    ${side(r.point.ours)}`);
      say(`               theirs  ${side(r.point.theirs)}`);
      say(
        `               function ${same(r.point.same_function)}, line ${same(r.point.same_line)}, timing ${same(r.point.same_timing)}`,
      );
    }
    say(`  key          ours    ${cell(r.key.ours.join(' / ')).slice(0, 100)}`);
    say(`               theirs  ${cell(r.key.theirs.join(' / ')).slice(0, 100)}   → ${same(r.key.same)}`);
    say(
      `  options      ${r.choices.shared.length} of the package's ${r.choices.theirs} among our ${r.choices.ours}${r.choices.shared.length ? `: ${r.choices.shared.map(x => cell(x).slice(0, 40)).join(', ')}` : ''}`,
    );
  }
  if (c.rows.length) say();
  say('type           compared  same key            same function       same line           options shared');
  for (const [type, t] of Object.entries(c.totals)) {
    if (!t.compared) continue;
    say(
      `${type.padEnd(14)} ${String(t.compared).padEnd(9)} ${pct(t.same_key, t.compared).padEnd(19)} ${(t.same_function === null ? '—' : pct(t.same_function, t.compared)).padEnd(19)} ${(t.same_line === null ? '—' : pct(t.same_line, t.compared)).padEnd(19)} ${t.shared_choices === null ? '—' : `${Math.round(100 * t.shared_choices)} %`}`,
    );
  }
  if (c.unmatched.length) {
    say();
    say(`${c.unmatched.length} built question(s) without a counterpart in the package:`);
    for (const u of c.unmatched.slice(0, 20)) say(`  ${cell(u.id)}: ${u.reason}`);
    if (c.unmatched.length > 20) say(`  … and ${c.unmatched.length - 20} more (--json lists them all)`);
  }
}
