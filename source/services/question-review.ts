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
import {
  readProvenance,
  type CommonProvenance,
  type E2eEffectProvenance,
  type LocalProvenance,
  type NoEffectProvenance,
} from '../core/questions/provenance.js';

export class ReviewError extends Error {}

/** A built question's provenance as re-validation reads it: the common part, and what one type or another has. */
export type Provenance = CommonProvenance &
  Partial<Pick<E2eEffectProvenance, 'before' | 'after' | 'patch_text'>> &
  Partial<Pick<LocalProvenance, 'evaluated_at'>> &
  Partial<Pick<NoEffectProvenance, 'no_effect'>>;

/** The stored question and its provenance; only built questions are reviewed here. */
export function builtQuestion(
  db: Db,
  id: string,
): {q: Question; prov: Provenance; validations: Record<string, unknown>} {
  const q = getQuestion(db, id);
  if (!q) throw new ReviewError(`no question "${id}" in this database`);
  const stored = questionProvenance(db, id)!;
  const read = readProvenance(q.type, stored.provenance);
  if (read.problems.length)
    throw new ReviewError(
      `question "${id}": its provenance does not read as a built question's (${read.problems.slice(0, 3).join('; ')}${read.problems.length > 3 ? `; ${read.problems.length - 3} more` : ''})`,
    );
  if (!read.built)
    throw new ReviewError(
      `question "${id}" was not built here (imported or written by hand): flag it instead (deltalens explore, f)`,
    );
  const prov: Provenance = read.built;
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
