/**
 * People's labels (annotation), final answers (adjudication) and question flags. Every write is
 * one short transaction, so several people can label into one database file at once (WAL and
 * the busy timeout of openDb do the waiting).
 */
import {FLAG_VERDICTS, type FlagVerdict} from '../core/questions/annotation.js';
import type {Question} from '../core/questions/model.js';
import type {Db} from './db.js';
import {getQuestion} from './questions.js';

export interface AnnotationRow {
  id: number;
  question: string;
  explanation: number;
  annotator: string;
  letters: string[];
  rationale: string | null;
  seconds: number | null;
  origin: string;
  created_at: string;
}

export interface NewAnnotation {
  question: string;
  explanation: number;
  annotator: string;
  letters: string[];
  rationale?: string | null;
  seconds?: number | null;
  origin?: string;
}

/** Checks letters against the question: one choice label, or two (before, after) for end-to-end effect. */
function checkLetters(q: Question, letters: unknown, field = 'letters'): string[] {
  if (!Array.isArray(letters) || !letters.every(l => typeof l === 'string'))
    throw new RangeError(`${field} must be a list of choice letters`);
  const want = q.type === 'e2e_effect' ? 2 : 1;
  if (letters.length !== want)
    throw new RangeError(
      `${field}: question ${q.id} (${q.type}) takes ${want} letter${want > 1 ? 's (before, after)' : ''}, got ${letters.length}`,
    );
  const labels = new Set(q.choices.map(c => c.label));
  for (const l of letters)
    if (!labels.has(l))
      throw new RangeError(`${field}: "${l}" is not a choice of question ${q.id} (${[...labels].join(', ')})`);
  return letters as string[];
}

function checkItem(db: Db, question: string, explanation: number): Question {
  const q = getQuestion(db, question);
  if (!q) throw new RangeError(`question: no question "${question}" in this database`);
  const e = db.prepare('SELECT 1 FROM explanation WHERE id = ?').get(explanation);
  if (!e) throw new RangeError(`explanation: no explanation #${explanation} in this database`);
  return q;
}

/** Stores a person's label (replacing their earlier one on the same item); returns its id. */
export function saveAnnotation(db: Db, a: NewAnnotation): number {
  if (!a.annotator.trim()) throw new RangeError('annotator: a name is needed');
  const q = checkItem(db, a.question, a.explanation);
  const letters = checkLetters(q, a.letters);
  return Number(
    (
      db
        .prepare(
          `INSERT INTO annotation (question, explanation, annotator, letters, rationale, seconds, origin) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (question, explanation, annotator) DO UPDATE SET letters = excluded.letters, rationale = excluded.rationale,
             seconds = excluded.seconds, origin = excluded.origin, created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
           RETURNING id`,
        )
        .get(
          a.question,
          a.explanation,
          a.annotator,
          JSON.stringify(letters),
          a.rationale ?? null,
          a.seconds ?? null,
          a.origin ?? 'here',
        ) as {id: number}
    ).id,
  );
}

export function setRationale(db: Db, id: number, rationale: string | null): void {
  db.prepare('UPDATE annotation SET rationale = ? WHERE id = ?').run(rationale, id);
}

export function deleteAnnotation(db: Db, id: number): boolean {
  return db.prepare('DELETE FROM annotation WHERE id = ?').run(id).changes > 0;
}

export function listAnnotations(
  db: Db,
  filter: {annotator?: string; question?: string; explanation?: number} = {},
): AnnotationRow[] {
  const where: string[] = [];
  const args: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    where.push(clause);
    args.push(value);
  };
  if (filter.annotator) add('annotator = ?', filter.annotator);
  if (filter.question) add('question = ?', filter.question);
  if (filter.explanation !== undefined) add('explanation = ?', filter.explanation);
  const rows = db
    .prepare(
      `SELECT id, question, explanation, annotator, letters, rationale, seconds, origin, created_at FROM annotation ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id`,
    )
    .all(...args) as (Omit<AnnotationRow, 'letters'> & {letters: string})[];
  return rows.map(r => ({...r, letters: JSON.parse(r.letters) as string[]}));
}

interface AdjudicationRow {
  question: string;
  explanation: number;
  adjudicator: string;
  letters: string[];
  note: string | null;
  created_at: string;
}

export function saveAdjudication(
  db: Db,
  a: {question: string; explanation: number; adjudicator: string; letters: string[]; note?: string | null},
): void {
  if (!a.adjudicator.trim()) throw new RangeError('adjudicator: a name is needed');
  const q = checkItem(db, a.question, a.explanation);
  const letters = checkLetters(q, a.letters);
  db.prepare(
    `INSERT INTO adjudication (question, explanation, adjudicator, letters, note) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (question, explanation) DO UPDATE SET adjudicator = excluded.adjudicator, letters = excluded.letters, note = excluded.note,
       created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`,
  ).run(a.question, a.explanation, a.adjudicator, JSON.stringify(letters), a.note ?? null);
}

export function setAdjudicationNote(db: Db, question: string, explanation: number, note: string | null): void {
  db.prepare('UPDATE adjudication SET note = ? WHERE question = ? AND explanation = ?').run(
    note,
    question,
    explanation,
  );
}

export function listAdjudications(db: Db): AdjudicationRow[] {
  return (
    db
      .prepare('SELECT question, explanation, adjudicator, letters, note, created_at FROM adjudication ORDER BY id')
      .all() as (Omit<AdjudicationRow, 'letters'> & {letters: string})[]
  ).map(r => ({
    ...r,
    letters: JSON.parse(r.letters) as string[],
  }));
}

export interface FlagRow {
  question: string;
  author: string;
  verdict: FlagVerdict;
  note: string | null;
  created_at: string;
}

/** A person's verdict on a question (replacing their earlier one). */
export function setFlag(db: Db, f: {question: string; author: string; verdict: string; note?: string | null}): void {
  if (!(FLAG_VERDICTS as readonly string[]).includes(f.verdict))
    throw new RangeError(`verdict must be one of ${FLAG_VERDICTS.join(', ')} (got "${f.verdict}")`);
  if (!f.author.trim()) throw new RangeError('author: a name is needed');
  if (!getQuestion(db, f.question)) throw new RangeError(`question: no question "${f.question}" in this database`);
  db.prepare(
    `INSERT INTO question_flag (question, author, verdict, note) VALUES (?, ?, ?, ?)
     ON CONFLICT (question, author) DO UPDATE SET verdict = excluded.verdict, note = excluded.note, created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`,
  ).run(f.question, f.author, f.verdict, f.note ?? null);
}

export function listFlags(db: Db): FlagRow[] {
  return db
    .prepare('SELECT question, author, verdict, note, created_at FROM question_flag ORDER BY question, created_at')
    .all() as FlagRow[];
}

/** Questions a person flagged with anything but "valid" (the latest verdict of each author counts). */
export function flaggedQuestions(db: Db): Map<string, FlagVerdict[]> {
  const out = new Map<string, FlagVerdict[]>();
  for (const f of listFlags(db))
    if (f.verdict !== 'valid') out.set(f.question, [...(out.get(f.question) ?? []), f.verdict]);
  return out;
}
