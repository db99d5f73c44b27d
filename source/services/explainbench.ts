/**
 * The public ExplainBench replication data, imported as it is (pan2013e/explainbench):
 *
 * - dataset/context/<type>.json (intent types) and <type>__<agent>.json (effect types):
 *   {instance: {…context…, choices: [text…]}} → questions (labels A, B, … in file order);
 * - dataset/ground_truths/<same name>.json: keys (e2e_intent {answer}, e2e_effect
 *   {before_answer, after_answer}, local {answer: [letter]}, lower case);
 * - results/generation/<type>/<agent>__<qa model>.json: {predictions: {instance: [sample…]}}
 *   → an explanation per (agent, instance) — "original", or "audited" for audit_<agent> —
 *   whose text the data lacks, and a qa_answer per sample;
 * - results/evaluation/<type>/<agent>__<qa model>.json: {statistics, raw} → published
 *   statistics (over the authors' 297 instances) and per-instance correctness.
 *
 * One transaction: a file that does not fit leaves nothing imported.
 */
import {existsSync, readdirSync, readFileSync} from 'node:fs';
import {basename, join, relative} from 'node:path';
import {parseAnswer, verdictFor} from '../core/questions/answers.js';
import {
  INSUFFICIENT_TEXT,
  QUESTION_TYPES,
  validateQuestion,
  type Choice,
  type Question,
  type QuestionType,
  type Role,
} from '../core/questions/model.js';
import {writeTx, type Db} from '../store/db.js';
import {ensureExplanation, insertAnswer, insertQuestion, upsertPublished} from '../store/questions.js';

export class ExplainBenchError extends Error {}

interface ExplainBenchReport {
  questions: Record<QuestionType, number>;
  explanations: number;
  answers: number;
  answersNew: number;
  unparseable: number;
  published: number;
  skipped: string[];
}

/** Question wording (ours; the context and choices are the benchmark's). */
const QUESTION_TEXT: Record<QuestionType, string> = {
  e2e_intent:
    'Which expression should replace [[MASKED]] in the test, so that the test checks the behaviour the developer intended?',
  e2e_effect:
    'What is the result of running the test before the patch, and after the patch? Answer two letters: before, after.',
  local_intent:
    'Within the context of the provided function and inputs, at the specified timing point relative to the specified line, which expression best describes the developer-intended change?',
  local_effect:
    'Within the context of the provided function and inputs, at the specified timing point relative to the specified line, which expression has different values before and after the patch?',
};

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ExplainBenchError(`${path}: ${(error as Error).message}`);
  }
}

function roleOf(text: string, type: QuestionType): Role {
  if (/cannot be answered|insufficient to answer|based on the explanation alone/i.test(text)) return 'insufficient';
  if (type === 'local_effect' && /patch has no effect/i.test(text)) return 'no_effect';
  return 'distractor';
}

function keyOf(type: QuestionType, truth: Record<string, unknown>, where: string): string[] {
  const up = (v: unknown) =>
    typeof v === 'string' ? v.toUpperCase() : Array.isArray(v) && typeof v[0] === 'string' ? v[0].toUpperCase() : null;
  const key = type === 'e2e_effect' ? [up(truth.before_answer), up(truth.after_answer)] : [up(truth.answer)];
  if (key.some(k => k === null))
    throw new ExplainBenchError(`${where}: ground truth without an answer (${JSON.stringify(truth)})`);
  return key as string[];
}

function contextOf(type: QuestionType, c: Record<string, unknown>): Record<string, unknown> {
  if (type === 'e2e_intent') return {test: c.masked_test};
  if (type === 'e2e_effect') return {test: c.test_content};
  return {
    function: c.function_code_before_patch,
    inputs: c.function_parameters_before_patch,
    line: c.line,
    timing: c.before_or_after,
    ...(c.execution !== undefined ? {execution: c.execution} : {}),
  };
}

function normaliseModel(model: string): string {
  return model.replace(/^openai-/, '');
}

/** Rows written per transaction. */
const WRITE_CHUNK = 2000;

/**
 * The package's questions (dataset/context + dataset/ground_truths), read and validated; nothing
 * is written. A file that does not fit throws (ExplainBenchError, naming the file and instance).
 */
export function readExplainBenchQuestions(dir: string): {
  questions: {question: Question; file: string}[];
  skipped: string[];
} {
  const contextDir = join(dir, 'dataset', 'context');
  const truthDir = join(dir, 'dataset', 'ground_truths');
  if (!existsSync(contextDir) || !existsSync(truthDir)) {
    throw new ExplainBenchError(
      `${dir}: not an ExplainBench checkout (expected dataset/context and dataset/ground_truths)`,
    );
  }
  const questions: {question: Question; file: string}[] = [];
  const skipped: string[] = [];
  for (const file of readdirSync(truthDir)
    .filter(f => f.endsWith('.json'))
    .sort()) {
    const [typeName, agent] = basename(file, '.json').split('__') as [string, string | undefined];
    const type = typeName as QuestionType;
    if (!QUESTION_TYPES.includes(type)) {
      skipped.push(`${file}: not a question type`);
      continue;
    }
    const ctxPath = join(contextDir, file);
    if (!existsSync(ctxPath)) {
      skipped.push(`dataset/ground_truths/${file}: no dataset/context/${file}`);
      continue;
    }
    const contexts = readJson(ctxPath) as Record<string, Record<string, unknown>>;
    const truths = readJson(join(truthDir, file)) as Record<string, Record<string, unknown>>;
    for (const [instance, ctx] of Object.entries(contexts)) {
      const truth = truths[instance];
      const where = `dataset/context/${file} ${instance}`;
      if (!truth) {
        skipped.push(`${where}: no ground truth`);
        continue;
      }
      const texts = ctx.choices;
      if (!Array.isArray(texts)) throw new ExplainBenchError(`${where}: "choices" is not a list`);
      const key = keyOf(type, truth, `dataset/ground_truths/${file} ${instance}`);
      const choices: Choice[] = texts.map((t, i) => {
        const label = LETTERS[i]!;
        const role = roleOf(String(t), type);
        return {label, text: String(t), role: role === 'distractor' && key.includes(label) ? 'correct' : role};
      });
      if (!choices.some(c => c.role === 'insufficient'))
        choices.push({label: LETTERS[choices.length]!, text: INSUFFICIENT_TEXT, role: 'insufficient'});
      const id = `explainbench/${type}/${agent ? `${agent}/` : ''}${instance}`;
      try {
        questions.push({
          question: validateQuestion({
            id,
            instance,
            type,
            ...(agent ? {agent} : {}),
            context: contextOf(type, ctx),
            question: QUESTION_TEXT[type],
            choices,
            answer: type === 'e2e_effect' ? key : key[0],
          }),
          file,
        });
      } catch (error) {
        throw new ExplainBenchError(`${where}: ${(error as Error).message}`);
      }
    }
  }
  return {questions, skipped};
}

export function importExplainBench(db: Db, dir: string): ExplainBenchReport {
  const report: ExplainBenchReport = {
    questions: {e2e_intent: 0, e2e_effect: 0, local_intent: 0, local_effect: 0},
    explanations: 0,
    answers: 0,
    answersNew: 0,
    unparseable: 0,
    published: 0,
    skipped: [],
  };
  const questions = new Map<string, Question>();
  // Read and validate everything first (a bad package writes nothing), then write in bounded
  // transactions so a concurrent writer waits for one chunk, not for the whole package.
  const writes: (() => void)[] = [];
  const explanations = new Set<number>();
  {
    const read = readExplainBenchQuestions(dir);
    report.skipped.push(...read.skipped);
    for (const {question: q, file} of read.questions) {
      writes.push(() =>
        insertQuestion(db, q, {
          source: 'explainbench',
          context: `dataset/context/${file}`,
          ground_truth: `dataset/ground_truths/${file}`,
        }),
      );
      questions.set(q.id, q);
      report.questions[q.type] += 1;
    }

    const generation = join(dir, 'results', 'generation');
    for (const type of QUESTION_TYPES) {
      const typeDir = join(generation, type);
      if (!existsSync(typeDir)) continue;
      for (const file of readdirSync(typeDir)
        .filter(f => f.endsWith('.json'))
        .sort()) {
        const [runName, modelRaw] = basename(file, '.json').split('__') as [string, string | undefined];
        if (!modelRaw) {
          report.skipped.push(`results/generation/${type}/${file}: no __<model> in the name`);
          continue;
        }
        const audited = runName.startsWith('audit_');
        const agent = audited ? runName.slice('audit_'.length) : runName;
        const model = normaliseModel(modelRaw);
        const data = readJson(join(typeDir, file)) as {predictions?: Record<string, unknown[]>};
        if (!data.predictions || typeof data.predictions !== 'object')
          throw new ExplainBenchError(`results/generation/${type}/${file}: no "predictions"`);
        for (const [instance, samples] of Object.entries(data.predictions)) {
          const qid = `explainbench/${type}/${type === 'e2e_effect' || type === 'local_effect' ? `${agent}/` : ''}${instance}`;
          const q = questions.get(qid);
          if (!q) {
            report.skipped.push(`results/generation/${type}/${file} ${instance}: no question ${qid}`);
            continue;
          }
          const explanation = {id: 0};
          writes.push(() => {
            explanation.id = ensureExplanation(db, {
              instance,
              agent,
              kind: audited ? 'audited' : 'original',
              text: null,
              source: `explainbench results/generation (${audited ? 'audited' : 'original'} explanation text not in the data)`,
            });
            explanations.add(explanation.id);
          });
          (samples ?? []).forEach((sample, i) => {
            const raw = JSON.stringify(sample);
            const letters = parseAnswer(
              raw,
              q.type,
              q.choices.map(c => c.label),
            );
            if (!letters) report.unparseable += 1;
            report.answers += 1;
            writes.push(() => {
              const added = insertAnswer(db, {
                question: q.id,
                explanation: explanation.id,
                model,
                sample: i,
                promptHash: 'imported',
                raw,
                letters,
                verdict: verdictFor(letters, q.answer, q.choices),
                latencyMs: null,
                tokens: null,
                origin: 'imported',
                permutation: null,
                seed: null,
              });
              if (added) report.answersNew += 1;
            });
          });
        }
      }
    }

    const evaluation = join(dir, 'results', 'evaluation');
    for (const type of QUESTION_TYPES) {
      const typeDir = join(evaluation, type);
      if (!existsSync(typeDir)) continue;
      for (const file of readdirSync(typeDir)
        .filter(f => f.endsWith('.json'))
        .sort()) {
        const [runName, modelRaw] = basename(file, '.json').split('__') as [string, string | undefined];
        const data = readJson(join(typeDir, file)) as {
          statistics?: Record<string, unknown>;
          raw?: Record<string, (boolean | number)[]>;
        };
        const s = data.statistics ?? {};
        const num = (v: unknown) => (typeof v === 'number' ? v : null);
        const audited = runName.startsWith('audit_');
        writes.push(() =>
          upsertPublished(db, {
            benchmark: 'explainbench',
            type,
            agent: audited ? runName.slice('audit_'.length) : runName,
            explanations: audited ? 'audited' : 'original',
            model: normaliseModel(modelRaw ?? '?'),
            mean: num(s.mean),
            std: num(s.std),
            sem: num(s.sem),
            runValues: Array.isArray(s.metric_values) ? (s.metric_values as number[]) : null,
            perInstance: data.raw ?? null,
            sourcePath: relative(dir, join(typeDir, file)),
          }),
        );
        report.published += 1;
      }
    }
  }
  for (let at = 0; at < writes.length; at += WRITE_CHUNK)
    writeTx(db, () => writes.slice(at, at + WRITE_CHUNK).forEach(write => write()));
  report.explanations = explanations.size;
  return report;
}
