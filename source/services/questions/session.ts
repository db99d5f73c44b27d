/**
 * One questions build as it goes: its parts (for the progress count and the time left), what it
 * excluded and why, the questions it built or kept, and the one way a question is stored.
 */
import {createHash} from 'node:crypto';
import {validateQuestion, type Question, type QuestionType} from '../../core/questions/model.js';
import {readProvenance, type BuiltProvenance, type ChoiceValidation} from '../../core/questions/provenance.js';
import type {Db} from '../../store/db.js';
import {writeTx} from '../../store/db.js';
import {
  addReview,
  clearExclusion,
  getQuestion,
  insertQuestion,
  listReviews,
  noteExclusion,
  questionProvenance,
} from '../../store/questions.js';
import type {BuildOptions, BuildResult, BuiltQuestion, Excluded} from './options.js';

/** The hash of a question's inputs: built again only when one of them changes (or with --force). */
export function inputsHash(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex').slice(0, 16);
}

export class BuildSession {
  readonly excluded: Excluded[] = [];
  readonly questions: BuiltQuestion[] = [];
  /** the build's parts: the trees, the validation runs, and one per question it can build */
  readonly parts: {done: number; total: number};

  constructor(
    readonly db: Db,
    readonly o: BuildOptions,
  ) {
    const wanted = (t: QuestionType) => o.types.includes(t);
    const agentsOf = (t: QuestionType) => (wanted(t) ? o.agentPatches.length : 0);
    this.parts = {
      done: 0,
      total:
        2 +
        (wanted('e2e_intent') ? 1 : 0) +
        agentsOf('e2e_effect') +
        (wanted('local_intent') || wanted('local_effect') ? 1 : 0) +
        agentsOf('local_effect'),
    };
  }

  wants(t: QuestionType): boolean {
    return this.o.types.includes(t);
  }

  progress(stage: string, detail: string): void {
    this.o.onProgress?.(stage, detail, {...this.parts});
  }

  partDone(): void {
    this.parts.done = Math.min(this.parts.total, this.parts.done + 1);
  }

  /** Said in the answer and kept in the store (the instance screen lists them) until built. */
  exclude(stage: string, reason: string, agent?: string): void {
    this.excluded.push({instance: this.o.instance, stage, ...(agent ? {agent} : {}), reason});
    noteExclusion(this.db, {instance: this.o.instance, stage, agent: agent ?? null, reason});
  }

  /** Built before from the same inputs (and not --force): kept as stored, nothing runs again. */
  unchanged(type: QuestionType, id: string, inputs: string): boolean {
    if (this.o.force) return false;
    const stored = readProvenance(type, questionProvenance(this.db, id)?.provenance);
    // a provenance that does not read as this builder writes it is built anew
    if (!stored.built || !('inputs' in stored.built) || stored.built.inputs !== inputs) return false;
    const q = getQuestion(this.db, id);
    if (!q) return false;
    this.questions.push({question: q, provenance: stored.built, unchanged: true});
    return true;
  }

  /** One question, whole or not at all; replacing one an author reviewed is recorded. */
  save(q: Question, provenance: BuiltProvenance, validations: Record<string, ChoiceValidation>): void {
    const db = this.db;
    writeTx(db, () => {
      const review = listReviews(db, q.id).at(-1);
      // the question as the author left it, kept in the review that says it was built again
      const previous = review && review.action !== 'rebuilt' ? getQuestion(db, q.id) : null;
      insertQuestion(db, validateQuestion(q), provenance, validations);
      clearExclusion(db, q.instance, q.type, q.agent);
      if (review && previous)
        addReview(db, {
          question: q.id,
          reviewer: 'questions build',
          action: 'rebuilt',
          note: `built again (was ${review.action} by ${review.reviewer})`,
          previous,
        });
    });
    this.questions.push({question: q, provenance, unchanged: false});
  }

  result(): BuildResult {
    return {questions: this.questions, excluded: this.excluded};
  }
}
