/**
 * Built questions' provenance read back: the demo's built questions (one of each type, as the
 * builder stored them; test/fixtures/built-provenance.json) read as their type's, a damaged one
 * is told apart field by field — in the reader, the question screen and a review — and one that
 * was never built is not taken for one.
 */
import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import type {Question} from '../../source/core/questions/model.js';
import {readProvenance, readValidations} from '../../source/core/questions/provenance.js';
import {ReviewError, reviewQuestion} from '../../source/services/question-review.js';
import {insertQuestion} from '../../source/store/questions.js';
import {provenanceLines} from '../../source/ui/screens/question/lines.js';
import {freshDb} from '../helpers/db.js';
import {ROOT} from '../helpers/files.js';

type Stored = {question: Question; provenance: Record<string, unknown>; validations: Record<string, unknown>};
const BUILT = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'built-provenance.json'), 'utf8')) as Record<
  string,
  Stored
>;
const copy = <T>(v: T): T => structuredClone(v);

describe('a built question provenance, read back', () => {
  it("reads each type's as that type's: the fields its readers use are there", () => {
    for (const [kind, s] of Object.entries(BUILT)) {
      const r = readProvenance(s.question.type, s.provenance);
      expect(r.problems, kind).toEqual([]);
      expect(r.type).toBe(s.question.type);
      const p = r.built!;
      expect(p.origin).toBe('built');
      expect(p.test_validation.buggy.length).toBe(2);
      if (kind === 'e2e_intent') expect('expected' in p && p.expected.expr).toBe('79');
      if (kind === 'e2e_effect') expect('after' in p && p.after.map(o => o.status)).toEqual(['failed', 'failed']);
      if (kind === 'local_intent' || kind === 'local_effect') expect('evaluated_at' in p).toBe(true);
      if (kind === 'local_effect/no_effect') expect('no_effect' in p && p.no_effect.delta).toBe('none');
    }
  });

  it('names every damaged field by its path, and is not typed', () => {
    const p = copy(BUILT.e2e_intent!.provenance) as {
      test_validation: {buggy: Record<string, unknown>[]};
      selection: Record<string, unknown>;
      expected?: unknown;
    };
    delete p.test_validation.buggy[0]!.status;
    p.selection.picked = 'A';
    delete p.expected;
    const r = readProvenance('e2e_intent', p);
    expect(r.built).toBeNull();
    expect(r.problems).toEqual([
      'provenance.test_validation.buggy[0].status: missing',
      'provenance.expected: missing',
      'provenance.selection.picked: a list expected, string found',
    ]);
    // read as another type's, the fields that type needs are missing
    expect(readProvenance('local_intent', BUILT.e2e_intent!.provenance).problems).toContain(
      'provenance.evaluated_at: missing',
    );
  });

  it('a provenance that was never built (hand-written, imported) is no built one and no problem', () => {
    expect(readProvenance('e2e_intent', {source: 'written by hand'})).toEqual({
      type: 'e2e_intent',
      built: null,
      problems: [],
    });
    expect(readProvenance('local_effect', null).built).toBeNull();
    expect(readValidations({A: {observed: 'never'}, B: 'not an object', C: null})).toEqual({A: {observed: 'never'}});
  });

  it('the question screen shows a good one, and says which fields of a damaged one are wrong', () => {
    const s = BUILT['local_effect/no_effect']!;
    const lines = (prov: unknown) =>
      provenanceLines(
        {provenance: readProvenance(s.question.type, prov), validations: readValidations(s.validations)},
        s.question,
        120,
      )
        .map(l => l.text)
        .join('\n');
    expect(lines(s.provenance)).toContain('no effect: the traces are complete and show no difference');
    const damaged = copy(s.provenance) as {no_effect: Record<string, unknown>};
    damaged.no_effect.steps_compared = 'many';
    const shown = lines(damaged);
    expect(shown).toContain("the stored provenance does not read as a built local_effect question's:");
    expect(shown).toContain('provenance.no_effect.steps_compared: a number expected, string found');
    expect(shown).not.toContain('no effect: the traces are complete');
  });

  it('a review of a question whose provenance is damaged is refused, naming the field; nothing is stored', () => {
    const {db} = freshDb();
    const s = BUILT.e2e_effect!;
    const damaged = copy(s.provenance);
    delete damaged.after;
    insertQuestion(db, s.question, damaged, s.validations);
    expect(() => reviewQuestion(db, s.question.id, 'accepted', 'ada', null)).toThrow(ReviewError);
    expect(() => reviewQuestion(db, s.question.id, 'accepted', 'ada', null)).toThrow(/provenance\.after: missing/);
    insertQuestion(db, s.question, s.provenance, s.validations);
    expect(reviewQuestion(db, s.question.id, 'accepted', 'ada', null).action).toBe('accepted');
  });
});
