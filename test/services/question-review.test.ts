import {join} from 'node:path';
import {beforeAll, describe, expect, it} from 'vitest';
import {editDocument} from '../../source/core/questions/edit.js';
import {QuestionError, type Question} from '../../source/core/questions/model.js';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {lexicalModel} from '../../source/services/qa-models.js';
import {buildQuestions} from '../../source/services/questions/build.js';
import type {BuildOptions} from '../../source/services/questions/options.js';
import {saveEditedQuestion, type EditResult} from '../../source/services/question-revalidate.js';
import {ReviewError, reviewQuestion} from '../../source/services/question-review.js';
import {buildReport} from '../../source/services/report.js';
import {scoreExplanations} from '../../source/services/scoring.js';
import type {Db} from '../../source/store/db.js';
import {
  ensureExplanation,
  getQuestion,
  listAnswers,
  listReviews,
  questionProvenance,
  rejectedQuestions,
} from '../../source/store/questions.js';
import {freshDb} from '../helpers/db.js';
import {durationsBuild, insertDurationsQuestion} from '../helpers/questions.js';

const P = join(PROJECTS_DIR, 'durations');
const patch = (name: string) => join(P, 'patches', `${name}.diff`);
const ID = {
  intent: 'demo__durations-1/built/e2e_intent',
  effect: 'demo__durations-1/built/e2e_effect/wrong',
  local: 'demo__durations-1/built/local_intent',
  none: 'demo__durations-1/built/local_effect/ineffective',
  wrong: 'demo__durations-1/built/local_effect/wrong',
};

const options = (o: Partial<BuildOptions> = {}) =>
  durationsBuild({
    agentPatches: [
      {name: 'ineffective', file: patch('agent-ineffective')},
      {name: 'wrong', file: patch('agent-wrong')},
    ],
    ...o,
  });

let db: Db;
beforeAll(async () => {
  db = freshDb().db;
  await buildQuestions(db, await options());
}, 300_000);

const reviewer = 'ana';
const edit = (
  id: string,
  change: (doc: {
    question: string;
    choices: {label: string; text: string; role: string}[];
    answer: string | string[];
    note: string;
  }) => void,
): Promise<EditResult> => {
  const doc = JSON.parse(editDocument(getQuestion(db, id)!));
  change(doc);
  return saveEditedQuestion(db, id, JSON.stringify(doc), {
    python: process.env.DELTALENS_PYTHON ?? 'python3',
    sandbox: 'prefer',
    reviewer,
  });
};
const setText = (from: string, to: string) => (doc: {choices: {text: string}[]}) => {
  const c = doc.choices.find(x => x.text === from);
  if (!c) throw new Error(`no choice "${from}"`);
  c.text = to;
};
const texts = (q: Question | null) => q!.choices.map(c => c.text);
const check = (r: EditResult, label: string) => r.checks.find(c => c.label === label)!;
const labelOf = (id: string, text: string) => getQuestion(db, id)!.choices.find(c => c.text === text)!.label;

describe('editing a built question: changed choices are validated by running them before anything is saved', () => {
  it('end-to-end intent: a distractor that would also be correct refuses the edit; the question stays as it was', async () => {
    const before = getQuestion(db, ID.intent);
    const distractor = before!.choices.find(c => c.role === 'distractor')!;
    const r = await edit(ID.intent, setText(distractor.text, '5400.0'));
    expect(r.saved).toBe(false);
    expect(check(r, distractor.label)).toMatchObject({
      status: 'invalid',
      reason: expect.stringContaining('also a correct answer'),
      evidence: {buggy: {status: 'failed'}, fixed: {status: 'passed'}},
    });
    expect(r.problems[0]).toContain('5400.0');
    expect(getQuestion(db, ID.intent)).toEqual(before);
    expect(listReviews(db, ID.intent)).toEqual([]);
  }, 60_000);

  it('end-to-end intent: a distractor the test rejects on both versions is saved, with its runs; the old version is kept in the review', async () => {
    const before = getQuestion(db, ID.intent)!;
    const distractor = before.choices.find(c => c.role === 'distractor')!;
    const r = await edit(ID.intent, doc => {
      setText(distractor.text, '1800')(doc);
      doc.note = 'the buggy answer is a better distractor';
    });
    expect(r.saved).toBe(true);
    expect(check(r, distractor.label)).toMatchObject({
      status: 'valid',
      evidence: {buggy: {status: 'passed'}, fixed: {status: 'failed', line: 11}},
    });
    expect(r.checks.filter(c => c.status === 'unchanged')).toHaveLength(4);
    expect(texts(getQuestion(db, ID.intent))).toContain('1800');
    const review = listReviews(db, ID.intent).at(-1)!;
    expect(review).toMatchObject({action: 'edited', reviewer, note: 'the buggy answer is a better distractor'});
    expect(review.previous).toEqual(before);
    expect(questionProvenance(db, ID.intent)!.validations[distractor.label]).toMatchObject({edited: true});
  }, 60_000);

  it('end-to-end intent: a key the test does not turn from failing to passing is refused', async () => {
    const r = await edit(ID.intent, setText('5400', '5400 + 1'));
    expect(r.saved).toBe(false);
    expect(check(r, r.question.answer[0]!)).toMatchObject({
      status: 'invalid',
      reason: expect.stringContaining('does not fail-before-and-pass-after'),
    });
  }, 60_000);

  it("local intent: evaluated at the question's point on both versions — a changing distractor is refused, an unchanged one saved", async () => {
    const changing = await edit(ID.local, setText('text', 'total * 3'));
    expect(changing.saved).toBe(false);
    expect(check(changing, labelOf(ID.local, 'text'))).toMatchObject({
      status: 'invalid',
      evidence: {buggy: {value: 5400}, patched: {value: 16200}},
    });
    const same = await edit(ID.local, setText('text', 'len(text)'));
    expect(same.saved).toBe(true);
    expect(check(same, labelOf(ID.local, 'len(text)'))).toMatchObject({
      status: 'valid',
      evidence: {buggy: {value: 5}, patched: {value: 5}},
    });
    // the key moved to an expression that keeps its value: refused
    const moved = await edit(ID.local, doc => {
      const key = doc.choices.find(c => c.role === 'correct')!;
      const other = doc.choices.find(c => c.text === 'len(text)')!;
      [key.role, other.role] = ['distractor', 'correct'];
      doc.answer = other.label;
    });
    expect(moved.saved).toBe(false);
    expect(moved.problems.join()).toContain('does not change at the point');
  }, 120_000);

  it('local effect: "no effect" stays the key of a patch whose traces show no delta, and cannot be the key where they differ', async () => {
    const none = await edit(ID.none, doc => {
      const c = doc.choices.find(x => x.role === 'distractor')!;
      c.role = 'correct';
      doc.answer = c.label;
    });
    expect(none.saved).toBe(false);
    expect(none.problems.join()).toContain('no expression can be the key');
    const wrong = await edit(ID.wrong, doc => {
      doc.answer = doc.choices.find(x => x.role === 'no_effect')!.label;
    });
    expect(wrong.saved).toBe(false);
    expect(wrong.problems.join()).toContain('"no effect" cannot be the key');
  }, 60_000);

  it('end-to-end effect: checked against the stored runs — the key must be what the test did, a distractor what it never did', async () => {
    const passed = await edit(ID.effect, doc => {
      doc.answer = [
        doc.choices.find(c => c.role === 'correct')!.label,
        doc.choices.find(c => c.text === 'The test passed.')!.label,
      ];
    });
    expect(passed.saved).toBe(false);
    expect(passed.problems[0]).toContain('after the patch');
    const reworded = await edit(
      ID.effect,
      setText('The test passed.', 'The test failed at line 11 with exception: KeyError.'),
    );
    expect(reworded.saved).toBe(true);
    expect(reworded.ran).toBe(false);
  });

  it('the context cannot change, an unknown field is named, a fixed choice text stays fixed', async () => {
    await expect(edit(ID.local, doc => Object.assign(doc, {context: {line: 'x'}}))).rejects.toThrow(
      /context cannot be edited/,
    );
    await expect(edit(ID.local, doc => Object.assign(doc, {key: 'A'}))).rejects.toThrow(QuestionError);
    await expect(edit(ID.local, setText('Explanation insufficient to answer.', 'Not enough.'))).rejects.toMatchObject({
      field: expect.stringMatching(/^choices\[\d\]\.text$/),
    });
  });
});

describe('accepting and rejecting built questions', () => {
  it('a rejected question leaves scoring and the report (which says so); accepting it again brings it back', async () => {
    ensureExplanation(db, {
      instance: 'demo__durations-1',
      agent: 'wrong',
      kind: 'original',
      text: 'total keeps only the last unit',
      source: 'test',
    });
    reviewQuestion(db, ID.local, 'rejected', reviewer, 'too easy');
    expect(rejectedQuestions(db)).toEqual(new Set([ID.local]));
    await scoreExplanations(db, {model: lexicalModel(), samples: 1, concurrency: 1, kinds: ['original']});
    const scored = new Set(listAnswers(db, 'lexical').map(a => a.question));
    expect(scored.has(ID.local)).toBe(false);
    expect(scored.has(ID.intent)).toBe(true);
    expect(buildReport(db, {model: 'lexical'}).notes.join()).toContain('1 rejected built question(s)');
    reviewQuestion(db, ID.local, 'accepted', reviewer, null);
    expect(rejectedQuestions(db).size).toBe(0);
  });

  it('a rebuild replacing a reviewed question is recorded, so it reads as not reviewed; the answers to the replaced question go, those to an identical one stay', async () => {
    const answers = () => listAnswers(db, 'lexical').filter(a => a.question === ID.intent).length;
    expect(answers()).toBeGreaterThan(0);
    await buildQuestions(db, await options({types: ['e2e_intent'], agentPatches: [], force: true}));
    const last = listReviews(db, ID.intent).at(-1)!;
    expect(last).toMatchObject({action: 'rebuilt', reviewer: 'questions build'});
    expect(texts(last.previous)).toContain('1800');
    // the edited question was answered; the rebuilt one differs, so those answers are not its own
    expect(answers()).toBe(0);
    await scoreExplanations(db, {model: lexicalModel(), samples: 1, concurrency: 1, kinds: ['original']});
    const scored = answers();
    expect(scored).toBeGreaterThan(0);
    await buildQuestions(db, await options({types: ['e2e_intent'], agentPatches: [], force: true}));
    expect(answers()).toBe(scored);
  }, 180_000);

  it('questions not made here are not reviewed (they are flagged instead)', () => {
    insertDurationsQuestion(db, {id: 'hand-written'});
    expect(() => reviewQuestion(db, 'hand-written', 'accepted', reviewer, null)).toThrow(ReviewError);
    expect(() => reviewQuestion(db, 'nope', 'accepted', reviewer, null)).toThrow(/no question "nope"/);
  });
});
