import type {Choice, Question, QuestionType} from '../core/questions/model.js';
import type {Verdict} from '../core/questions/answers.js';
import type {Db} from './db.js';
import {ensureAgent} from './agents.js';
import {ensureInstance} from './instances.js';

/** Stores a question (replacing one with its id) with its provenance and, per choice label, how
 * that choice was validated. */
export function insertQuestion(
  db: Db,
  q: Question,
  provenance: unknown = null,
  validations: Record<string, unknown> = {},
): void {
  ensureInstance(db, q.instance);
  // a question replaced by another (rebuilt or edited: its text, context, choices or key differ):
  // the answers stored for it answered the old one, and go
  const before = db.prepare('SELECT text, context, key FROM question WHERE id = ?').get(q.id) as
    | {text: string | null; context: string | null; key: string | null}
    | undefined;
  if (before) {
    const oldChoices = db
      .prepare('SELECT label, text, role FROM choice WHERE question = ? ORDER BY position')
      .all(q.id) as {label: string; text: string; role: string}[];
    const same =
      before.text === q.question &&
      before.context === JSON.stringify(q.context) &&
      before.key === JSON.stringify(q.answer) &&
      JSON.stringify(oldChoices) === JSON.stringify(q.choices.map(c => ({label: c.label, text: c.text, role: c.role})));
    if (!same) db.prepare('DELETE FROM qa_answer WHERE question = ?').run(q.id);
  }
  const agentId = q.agent === null ? null : ensureAgent(db, q.agent, '');
  db.prepare(
    `INSERT INTO question (id, instance, type, trajectory, context, key, provenance, text, agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET instance = excluded.instance, type = excluded.type, trajectory = excluded.trajectory, context = excluded.context,
       key = excluded.key, provenance = excluded.provenance, text = excluded.text, agent = excluded.agent`,
  ).run(
    q.id,
    q.instance,
    q.type,
    q.trajectory,
    JSON.stringify(q.context),
    JSON.stringify(q.answer),
    provenance === null ? null : JSON.stringify(provenance),
    q.question,
    agentId,
  );
  db.prepare('DELETE FROM choice WHERE question = ?').run(q.id);
  const ins = db.prepare(
    'INSERT INTO choice (question, label, text, role, position, validation) VALUES (?, ?, ?, ?, ?, ?)',
  );
  q.choices.forEach((c, i) =>
    ins.run(
      q.id,
      c.label,
      c.text,
      c.role,
      i,
      validations[c.label] === undefined ? null : JSON.stringify(validations[c.label]),
    ),
  );
}

/** A question's provenance and each choice's validation, as stored (null: no such question). */
export function questionProvenance(
  db: Db,
  id: string,
): {provenance: unknown; validations: Record<string, unknown>} | null {
  const row = db.prepare('SELECT provenance FROM question WHERE id = ?').get(id) as
    | {provenance: string | null}
    | undefined;
  if (!row) return null;
  const choices = db
    .prepare('SELECT label, validation FROM choice WHERE question = ? AND validation IS NOT NULL')
    .all(id) as {label: string; validation: string}[];
  return {
    provenance: row.provenance === null ? null : JSON.parse(row.provenance),
    validations: Object.fromEntries(choices.map(c => [c.label, JSON.parse(c.validation)])),
  };
}

interface QuestionRow {
  id: string;
  instance: string;
  type: QuestionType;
  trajectory: number | null;
  agent: string | null;
  context: string | null;
  key: string | null;
  text: string | null;
}

const QUESTION_SELECT = `SELECT q.id, q.instance, q.type, q.trajectory, a.name AS agent, q.context, q.key, q.text
  FROM question q LEFT JOIN agent a ON a.id = q.agent`;

function choicesOf(db: Db, id: string): Choice[] {
  return db
    .prepare('SELECT label, text, role FROM choice WHERE question = ? ORDER BY position, label')
    .all(id) as Choice[];
}

function toQuestion(db: Db, r: QuestionRow): Question {
  return {
    id: r.id,
    instance: r.instance,
    type: r.type,
    trajectory: r.trajectory,
    agent: r.agent,
    context: r.context ? (JSON.parse(r.context) as Record<string, unknown>) : {},
    question: r.text ?? '',
    choices: choicesOf(db, r.id),
    answer: r.key ? (JSON.parse(r.key) as string[]) : [],
  };
}

export function getQuestion(db: Db, id: string): Question | null {
  const r = db.prepare(`${QUESTION_SELECT} WHERE q.id = ?`).get(id) as QuestionRow | undefined;
  return r ? toQuestion(db, r) : null;
}

export function listQuestions(db: Db, filter: {type?: QuestionType; instance?: string} = {}): Question[] {
  const where: string[] = [];
  const args: unknown[] = [];
  if (filter.type) {
    where.push('q.type = ?');
    args.push(filter.type);
  }
  if (filter.instance) {
    where.push('q.instance = ?');
    args.push(filter.instance);
  }
  const rows = db
    .prepare(
      `${QUESTION_SELECT}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY q.type, q.instance, a.name, q.id`,
    )
    .all(...args) as QuestionRow[];
  return rows.map(r => toQuestion(db, r));
}

/** An explanation of an agent for an instance (no trajectory stored); text NULL when the source lacks it. */
export function ensureExplanation(
  db: Db,
  e: {
    instance: string;
    agent: string;
    kind: 'original' | 'audited' | 'blank' | 'custom';
    text: string | null;
    source: string | null;
  },
): number {
  ensureInstance(db, e.instance);
  const agentId = ensureAgent(db, e.agent, '');
  const found = db
    .prepare('SELECT id, text FROM explanation WHERE trajectory IS NULL AND instance = ? AND agent = ? AND kind = ?')
    .get(e.instance, agentId, e.kind) as {id: number; text: string | null} | undefined;
  if (found) {
    if (found.text === null && e.text !== null)
      db.prepare('UPDATE explanation SET text = ?, n_chars = ? WHERE id = ?').run(e.text, [...e.text].length, found.id);
    return found.id;
  }
  return Number(
    db
      .prepare(
        'INSERT INTO explanation (trajectory, instance, agent, kind, text, n_chars, source) VALUES (NULL, ?, ?, ?, ?, ?, ?)',
      )
      .run(e.instance, agentId, e.kind, e.text, e.text === null ? 0 : [...e.text].length, e.source).lastInsertRowid,
  );
}

export interface ExplanationRow {
  id: number;
  instance: string | null;
  agent: string | null;
  kind: string;
  length: number;
  hasText: boolean;
  trajectory: number | null;
  source: string | null;
}

export function listExplanations(db: Db): ExplanationRow[] {
  return (
    db
      .prepare(
        `SELECT e.id, coalesce(e.instance, t.instance) AS instance, coalesce(a.name, ta.name) AS agent, e.kind, e.n_chars AS length,
                e.text IS NOT NULL AS hasText, e.trajectory, e.source
         FROM explanation e LEFT JOIN agent a ON a.id = e.agent LEFT JOIN trajectory t ON t.id = e.trajectory LEFT JOIN agent ta ON ta.id = t.agent
         ORDER BY e.id`,
      )
      .all() as (Omit<ExplanationRow, 'hasText'> & {hasText: number})[]
  ).map(r => ({...r, hasText: r.hasText === 1}));
}

export interface NewAnswer {
  question: string;
  explanation: number;
  model: string;
  sample: number;
  promptHash: string;
  raw: string;
  letters: string[] | null;
  verdict: Verdict | null;
  latencyMs: number | null;
  tokens: number | null;
  origin: 'imported' | 'scored';
  permutation: string[] | null;
  seed: number | null;
}

/** Stores an answer unless the same (question, explanation, model, sample, prompt) is stored. */
export function insertAnswer(db: Db, a: NewAnswer): boolean {
  const r = db
    .prepare(
      `INSERT INTO qa_answer (question, explanation, model, sample, prompt_hash, raw, letters, verdict, latency_ms, tokens, origin, permutation, seed)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    )
    .run(
      a.question,
      a.explanation,
      a.model,
      a.sample,
      a.promptHash,
      a.raw,
      a.letters === null ? null : JSON.stringify(a.letters),
      a.verdict,
      a.latencyMs,
      a.tokens,
      a.origin,
      a.permutation === null ? null : JSON.stringify(a.permutation),
      a.seed,
    );
  return r.changes > 0;
}

interface AnswerRow {
  question: string;
  type: QuestionType;
  instance: string;
  agent: string;
  explanations: string;
  explanation: number;
  model: string;
  sample: number;
  raw: string | null;
  letters: string[] | null;
  verdict: Verdict | null;
}

/** Stored answers, of one model and/or one question when given. */
export function listAnswers(db: Db, model?: string, question?: string): AnswerRow[] {
  const where = [model ? 'x.model = ?' : null, question ? 'x.question = ?' : null].filter(Boolean);
  const rows = db
    .prepare(
      `SELECT x.question, q.type, q.instance, coalesce(a.name, ta.name) AS agent, e.kind AS explanations, x.explanation, x.model, x.sample, x.raw, x.letters, x.verdict
       FROM qa_answer x JOIN question q ON q.id = x.question JOIN explanation e ON e.id = x.explanation
       LEFT JOIN agent a ON a.id = e.agent LEFT JOIN trajectory t ON t.id = e.trajectory LEFT JOIN agent ta ON ta.id = t.agent
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY x.id`,
    )
    .all(...[model, question].filter((v): v is string => Boolean(v))) as (Omit<AnswerRow, 'letters'> & {
    letters: string | null;
  })[];
  return rows.map(r => ({...r, letters: r.letters ? (JSON.parse(r.letters) as string[]) : null}));
}

export function answerModels(db: Db): {model: string; answers: number}[] {
  return db
    .prepare('SELECT model, count(*) AS answers FROM qa_answer GROUP BY model ORDER BY answers DESC, model')
    .all() as {model: string; answers: number}[];
}

export interface PublishedMetric {
  benchmark: string;
  type: QuestionType;
  agent: string;
  explanations: string;
  model: string;
  mean: number | null;
  std: number | null;
  sem: number | null;
  runValues: number[] | null;
  perInstance: Record<string, (boolean | number)[]> | null;
  sourcePath: string | null;
}

export function upsertPublished(db: Db, m: PublishedMetric): void {
  db.prepare(
    `INSERT INTO published_metric (benchmark, type, agent, explanations, model, mean, std, sem, run_values, per_instance, source_path)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (benchmark, type, agent, explanations, model) DO UPDATE SET mean = excluded.mean, std = excluded.std, sem = excluded.sem,
       run_values = excluded.run_values, per_instance = excluded.per_instance, source_path = excluded.source_path`,
  ).run(
    m.benchmark,
    m.type,
    m.agent,
    m.explanations,
    m.model,
    m.mean,
    m.std,
    m.sem,
    m.runValues ? JSON.stringify(m.runValues) : null,
    m.perInstance ? JSON.stringify(m.perInstance) : null,
    m.sourcePath,
  );
}

export function listPublished(db: Db): PublishedMetric[] {
  return (
    db
      .prepare(
        'SELECT benchmark, type, agent, explanations, model, mean, std, sem, run_values AS runValues, per_instance AS perInstance, source_path AS sourcePath FROM published_metric ORDER BY id',
      )
      .all() as (Omit<PublishedMetric, 'runValues' | 'perInstance'> & {
      runValues: string | null;
      perInstance: string | null;
    })[]
  ).map(r => ({
    ...r,
    runValues: r.runValues ? JSON.parse(r.runValues) : null,
    perInstance: r.perInstance ? JSON.parse(r.perInstance) : null,
  }));
}

/** One explanation's id, kind and text. */
export function getExplanation(db: Db, id: number): {id: number; kind: string; text: string | null} | null {
  return (
    (db.prepare('SELECT id, kind, text FROM explanation WHERE id = ?').get(id) as
      | {id: number; kind: string; text: string | null}
      | undefined) ?? null
  );
}

/** The first explanation of this kind an agent wrote for an instance (directly, or through its run). */
export function findExplanation(
  db: Db,
  instance: string,
  agent: string,
  kind: string,
): {id: number; kind: string; text: string | null} | null {
  return (
    (db
      .prepare(
        `SELECT e.id, e.kind, e.text FROM explanation e LEFT JOIN agent a ON a.id = e.agent LEFT JOIN trajectory t ON t.id = e.trajectory
         LEFT JOIN agent ta ON ta.id = t.agent WHERE coalesce(e.instance, t.instance) = ? AND coalesce(a.name, ta.name) = ? AND e.kind = ? ORDER BY e.id LIMIT 1`,
      )
      .get(instance, agent, kind) as {id: number; kind: string; text: string | null} | undefined) ?? null
  );
}

export function explanationText(db: Db, id: number): string | null {
  return (db.prepare('SELECT text FROM explanation WHERE id = ?').pluck().get(id) as string | null | undefined) ?? null;
}

/** Every explanation's text by id (null: imported without its text). */
export function explanationTexts(db: Db): Map<number, string | null> {
  return new Map(
    (db.prepare('SELECT id, text FROM explanation').all() as {id: number; text: string | null}[]).map(r => [
      r.id,
      r.text,
    ]),
  );
}

/**
 * Replaces an explanation's text; the answers to the old text no longer describe it and go.
 * Returns whether the text changed. Call inside a write transaction.
 */
export function replaceExplanationText(db: Db, id: number, text: string): boolean {
  if (explanationText(db, id) === text) return false;
  db.prepare('DELETE FROM qa_answer WHERE explanation = ?').run(id);
  db.prepare('UPDATE explanation SET text = ?, n_chars = ? WHERE id = ?').run(text, [...text].length, id);
  return true;
}

interface SampleAnswer {
  model: string;
  sample: number;
  letters: string[] | null;
  verdict: string | null;
  raw: string | null;
  permutation: string | null;
  /** the choice order the model was shown (from the stored permutation) */
  order: string[] | null;
}

/** Every stored answer to one question about one explanation, per model and sample. */
export function answersFor(db: Db, question: string, explanation: number): SampleAnswer[] {
  return (
    db
      .prepare(
        'SELECT model, sample, letters, verdict, raw, permutation FROM qa_answer WHERE question = ? AND explanation = ? ORDER BY model, sample, id',
      )
      .all(question, explanation) as {
      model: string;
      sample: number;
      letters: string | null;
      verdict: string | null;
      raw: string | null;
      permutation: string | null;
    }[]
  ).map(a => ({
    ...a,
    letters: a.letters ? (JSON.parse(a.letters) as string[]) : null,
    order: a.permutation ? (JSON.parse(a.permutation) as string[]) : null,
  }));
}

/** A checker: is this sample of this model's answer (for this prompt) already stored? */
export function answerStored(
  db: Db,
): (a: {question: string; explanation: number; model: string; sample: number; promptHash: string}) => boolean {
  const q = db
    .prepare(
      'SELECT 1 FROM qa_answer WHERE question = ? AND explanation = ? AND model = ? AND sample = ? AND prompt_hash = ?',
    )
    .pluck();
  return a => q.get(a.question, a.explanation, a.model, a.sample, a.promptHash) !== undefined;
}

/** Every stored answer's question, model, letters, verdict and the choice order it was shown. */
export function answerPositions(
  db: Db,
): {question: string; model: string; letters: string | null; verdict: string | null; permutation: string | null}[] {
  return db.prepare('SELECT question, model, letters, verdict, permutation FROM qa_answer').all() as {
    question: string;
    model: string;
    letters: string | null;
    verdict: string | null;
    permutation: string | null;
  }[];
}

/** Questions some model answered correctly from a blank explanation, per model. */
export function blankCorrect(db: Db): {question: string; model: string; correct: number; n: number}[] {
  return db
    .prepare(
      `SELECT x.question, x.model, sum(x.verdict = 'correct') AS correct, count(*) AS n FROM qa_answer x JOIN explanation e ON e.id = x.explanation
       WHERE e.kind = 'blank' GROUP BY x.question, x.model HAVING correct > 0 ORDER BY x.question`,
    )
    .all() as {question: string; model: string; correct: number; n: number}[];
}

/** How a model answered a question from explanations of these kinds: right answers and samples. */
export function answerTally(db: Db, question: string, model: string, kinds: string[]): {correct: number; n: number} {
  const row = db
    .prepare(
      `SELECT coalesce(sum(x.verdict = 'correct'), 0) AS correct, count(*) AS n FROM qa_answer x JOIN explanation e ON e.id = x.explanation
       WHERE x.question = ? AND x.model = ? AND e.kind IN (SELECT value FROM json_each(?))`,
    )
    .get(question, model, JSON.stringify(kinds)) as {correct: number; n: number};
  return row;
}

export type ReviewAction = 'accepted' | 'rejected' | 'edited' | 'rebuilt';

export interface ReviewRow {
  id: number;
  question: string;
  reviewer: string;
  action: ReviewAction;
  note: string | null;
  previous: Question | null;
  validation: unknown;
  created_at: string;
}

/** Records a review of a question (the latest one is its status). */
export function addReview(
  db: Db,
  r: {
    question: string;
    reviewer: string;
    action: ReviewAction;
    note?: string | null;
    previous?: Question | null;
    validation?: unknown;
  },
): number {
  return Number(
    db
      .prepare(
        'INSERT INTO question_review (question, reviewer, action, note, previous, validation) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        r.question,
        r.reviewer,
        r.action,
        r.note ?? null,
        r.previous ? JSON.stringify(r.previous) : null,
        r.validation === undefined ? null : JSON.stringify(r.validation),
      ).lastInsertRowid,
  );
}

/** Every review of a question, oldest first. */
export function listReviews(db: Db, question: string): ReviewRow[] {
  const rows = db
    .prepare(
      'SELECT id, question, reviewer, action, note, previous, validation, created_at FROM question_review WHERE question = ? ORDER BY id',
    )
    .all(question) as (Omit<ReviewRow, 'previous' | 'validation'> & {
    previous: string | null;
    validation: string | null;
  })[];
  return rows.map(r => ({
    ...r,
    previous: r.previous ? (JSON.parse(r.previous) as Question) : null,
    validation: r.validation ? JSON.parse(r.validation) : null,
  }));
}

/** The latest review of each reviewed question. */
export function reviewStatus(
  db: Db,
): Map<string, {action: ReviewAction; reviewer: string; note: string | null; created_at: string}> {
  const rows = db
    .prepare(
      'SELECT r.question, r.action, r.reviewer, r.note, r.created_at FROM question_review r JOIN (SELECT question, MAX(id) AS id FROM question_review GROUP BY question) l ON l.id = r.id',
    )
    .all() as {question: string; action: ReviewAction; reviewer: string; note: string | null; created_at: string}[];
  return new Map(
    rows.map(r => [r.question, {action: r.action, reviewer: r.reviewer, note: r.note, created_at: r.created_at}]),
  );
}

/** Questions whose latest review rejects them: left out of scoring, reports and exports. */
export function rejectedQuestions(db: Db): Set<string> {
  return new Set([...reviewStatus(db)].filter(([, r]) => r.action === 'rejected').map(([q]) => q));
}

export interface ExclusionRow {
  instance: string;
  stage: string;
  agent: string | null;
  reason: string;
  created_at: string;
}

/** Why questions build did not build a question (the latest reason per instance, stage and agent). */
export function noteExclusion(
  db: Db,
  e: {instance: string; stage: string; agent?: string | null; reason: string},
): void {
  db.prepare(`INSERT INTO question_exclusion (instance, stage, agent, reason) VALUES (?, ?, ?, ?)
    ON CONFLICT (instance, stage, agent) DO UPDATE SET reason = excluded.reason, created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`).run(
    e.instance,
    e.stage,
    e.agent ?? '',
    e.reason,
  );
}

/** The question was built (or the instance's test reproduces the bug): its exclusion is history. */
export function clearExclusion(db: Db, instance: string, stage: string, agent?: string | null): void {
  db.prepare('DELETE FROM question_exclusion WHERE instance = ? AND stage = ? AND agent = ?').run(
    instance,
    stage,
    agent ?? '',
  );
}

/** The exclusions of an instance, newest first. */
export function listExclusions(db: Db, instance: string): ExclusionRow[] {
  const rows = db
    .prepare(
      'SELECT instance, stage, agent, reason, created_at FROM question_exclusion WHERE instance = ? ORDER BY created_at DESC, stage, agent',
    )
    .all(instance) as (Omit<ExclusionRow, 'agent'> & {agent: string})[];
  return rows.map(r => ({...r, agent: r.agent || null}));
}
