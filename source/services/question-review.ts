/**
 * An author's review of a built question: accept it or reject it (a rejected question leaves
 * scoring, reports and exports). Editing one is services/question-revalidate.ts.
 */
import type {Question} from '../core/questions/model.js';
import type {Db} from '../store/db.js';
import {writeTx} from '../store/db.js';
import {
  addReview,
  getQuestion,
  listReviews,
  questionProvenance,
  type ReviewAction,
  type ReviewRow,
} from '../store/questions.js';
import type {BuildInputs, TestOutcome} from './question-build.js';

export class ReviewError extends Error {}

export interface Provenance {
  origin?: string;
  seed?: number;
  build?: BuildInputs;
  patch_text?: string;
  before?: TestOutcome[];
  after?: TestOutcome[];
  no_effect?: unknown;
  evaluated_at?: {
    buggy: {file: string; line: number; hit: number; timing: string};
    patched: {file: string; line: number; hit: number; timing: string};
  };
}

/** The stored question and its provenance; only built questions are reviewed here. */
export function builtQuestion(
  db: Db,
  id: string,
): {q: Question; prov: Provenance; validations: Record<string, unknown>} {
  const q = getQuestion(db, id);
  if (!q) throw new ReviewError(`no question "${id}" in this database`);
  const stored = questionProvenance(db, id)!;
  const prov = (stored.provenance ?? {}) as Provenance;
  if (prov.origin !== 'built')
    throw new ReviewError(
      `question "${id}" was not built here (imported or written by hand): flag it instead (deltalens explore, f)`,
    );
  return {q, prov, validations: stored.validations};
}

/** Accepts or rejects a built question (the latest review is its status). */
export function reviewQuestion(
  db: Db,
  id: string,
  action: Extract<ReviewAction, 'accepted' | 'rejected'>,
  reviewer: string,
  note: string | null,
): ReviewRow {
  builtQuestion(db, id);
  writeTx(db, () => addReview(db, {question: id, reviewer, action, note}));
  return listReviews(db, id).at(-1)!;
}
