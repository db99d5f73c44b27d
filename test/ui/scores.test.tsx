import {chmodSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {lexicalModel} from '../../source/services/qa-models.js';
import {scoreExplanations} from '../../source/services/scoring.js';
import type {Db} from '../../source/store/db.js';
import {ensureExplanation, insertAnswer} from '../../source/store/questions.js';
import {storeData} from '../../source/ui/data/index.js';
import {freshDb} from '../helpers/db.js';
import {tempDir} from '../helpers/files.js';
import {insertDurationsQuestion} from '../helpers/questions.js';
import {KEYS, renderApp} from '../helpers/ui.js';

let db: Db;
const saved = {EDITOR: process.env.EDITOR, VISUAL: process.env.VISUAL};
beforeAll(async () => {
  db = freshDb().db;
  insertDurationsQuestion(db, {
    id: 'demo/q1',
    correct: '5400 seconds total',
    wrong: '1800 seconds total',
    test: 'def test():\n    assert parse_duration("1h30m") == [[MASKED]]',
  });
  ensureExplanation(db, {
    instance: 'demo__durations-1',
    agent: 'agent-x',
    kind: 'original',
    text: 'It now returns 5400 seconds total for 1h30m.',
    source: 'test',
  });
  await scoreExplanations(db, {model: lexicalModel(), samples: 3, concurrency: 1, kinds: ['original']});
  // an "editor" that rewrites the explanation without asking
  const editor = join(tempDir(), 'fake-editor.sh');
  writeFileSync(editor, '#!/bin/sh\necho "The parser keeps only the last unit: 1800 seconds total." > "$1"\n');
  chmodSync(editor, 0o755);
  process.env.EDITOR = editor;
  delete process.env.VISUAL;
});
afterAll(() => {
  process.env.EDITOR = saved.EDITOR;
  if (saved.VISUAL !== undefined) process.env.VISUAL = saved.VISUAL;
});

describe('leaderboard and question screens', () => {
  it("leaderboard → an agent's questions → the question: key, prompt, live re-score, a custom explanation", async () => {
    const app = renderApp({data: storeData(db, 'test.db')});
    await app.ready();
    let frame = await app.press('l');
    expect(frame).toContain('Leaderboard · lexical (baseline)');
    expect(frame).toMatch(/agent-x\s+1\.000\s+—\s+—\s+—\s+1\.000 ± 0\.000/);
    frame = await app.press(KEYS.enter);
    expect(frame).toMatch(/e2e_intent\s+3\/3 ✓✓✓\s+demo\/q1/);
    frame = await app.press(KEYS.enter);
    expect(frame).toContain('Question · demo/q1');
    expect(frame).toContain('✓ A. 5400 seconds total  [correct]');
    expect(frame).toContain('lexical (baseline): 3/3 correct');
    frame = await app.press('v');
    expect(frame).not.toContain('✓ A.');
    expect(frame).toContain('verdict hidden');
    await app.press('v');
    frame = await app.press('p');
    expect(frame).toContain('*** Explanation Start ***');
    expect(frame).toContain('It now returns 5400 seconds total for 1h30m.');
    await app.press('p');
    frame = await app.press('r');
    const until = async (text: string) => {
      const deadline = Date.now() + 10_000;
      while (!app.frame().includes(text) && Date.now() < deadline) await new Promise(r => setTimeout(r, 20));
      return app.frame();
    };
    frame = await until('already stored');
    expect(frame).toContain('lexical (baseline): 2 new answers, 3 already stored, 0 failed'); // 5 samples live, 3 were stored
    frame = await app.press('e');
    frame = await until('saved as custom explanation');
    expect(frame).toContain('The parser keeps only the last unit: 1800 seconds total.');
    expect(frame).toContain('explanation of agent-x (custom)');
    await app.press('r');
    frame = await until('new answers');
    expect(frame).toContain('lexical (baseline): 5 new answers, 0 already stored');
    expect(frame).toContain('lexical (baseline): 0/5 correct'); // the edited explanation now points at B
    app.unmount();
  });
});

describe('question review and agreement in the explorer', () => {
  it('f flags the question with a verdict and a note under the annotator; A shows agreement', async () => {
    process.env.DELTALENS_ANNOTATOR = 'author-ann';
    const app = renderApp({data: storeData(db, 'test.db')});
    await app.ready();
    await app.press('l');
    await app.press(KEYS.enter);
    let frame = await app.press(KEYS.enter);
    expect(frame).toContain('Question · demo/q1');
    frame = await app.press('f');
    // the verdict is chosen from a list (ink-select-input): a number chooses at once
    expect(frame).toContain('Flag this question as');
    expect(frame).toMatch(/1 valid — valid\n.*2 ambiguous — ambiguous/);
    expect(frame).toContain('Enter choose · Esc cancel');
    frame = await app.press('2');
    expect(frame).toContain('flag ambiguous: note');
    for (const c of 'two readings') await app.press(c);
    await app.press(KEYS.enter);
    frame = await app.until('flagged ambiguous with a note as author-ann');
    expect(db.prepare('SELECT author, verdict, note FROM question_flag WHERE question = ?').get('demo/q1')).toEqual({
      author: 'author-ann',
      verdict: 'ambiguous',
      note: 'two readings',
    });
    frame = await app.press('G');
    expect(frame).toContain('author-ann: ambiguous — two readings');
    // back to the list, then the agreement screen
    await app.press(KEYS.escape);
    await app.press(KEYS.escape);
    await app.press(KEYS.escape);
    frame = await app.press('A');
    expect(frame).toContain("Agreement · people's labels");
    expect(frame).toContain('No labels yet');
  });
});

describe('what the leaderboard and the question screen must not hide or repeat', () => {
  it('v hides every trace of the key; the first m moves off the model on screen; r with everything stored offers R, which asks again', async () => {
    // a second model, sorting after the baseline: the leaderboard shows it first (non-baseline default)
    const explanation = db.prepare("SELECT id FROM explanation WHERE kind = 'original'").pluck().get() as number;
    insertAnswer(db, {
      question: 'demo/q1',
      explanation,
      model: 'zz-model',
      sample: 0,
      promptHash: 'h',
      raw: 'B',
      letters: ['B'],
      verdict: 'misaligned',
      latencyMs: null,
      tokens: null,
      origin: 'imported',
      permutation: ['B', 'A', 'C'],
      seed: null,
    });
    const app = renderApp({data: storeData(db, 'test.db')});
    await app.ready();
    let frame = await app.press('l');
    expect(frame).toContain('Leaderboard · zz-model');
    frame = await app.press('m');
    expect(frame).toContain('Leaderboard · lexical (baseline)');
    frame = await app.press('m');
    expect(frame).toContain('Leaderboard · zz-model');
    await app.press('m');
    await app.press(KEYS.enter);
    frame = await app.press(KEYS.enter);
    expect(frame).toContain('Question · demo/q1');
    frame = await app.press('v');
    for (const role of ['[correct]', '[distractor]', '[insufficient]', '✓', 'correct'])
      expect(frame).not.toContain(role);
    expect(frame).toContain('verdicts hidden');
    await app.press('v');
    const until = async (text: string) => {
      const deadline = Date.now() + 10_000;
      while (!app.frame().includes(text) && Date.now() < deadline) await new Promise(r => setTimeout(r, 20));
      return app.frame();
    };
    const before = db
      .prepare("SELECT count(*) FROM qa_answer WHERE model = 'lexical' AND question = 'demo/q1'")
      .pluck()
      .get() as number;
    await app.press('r');
    frame = await until('R asks the model 5 more times');
    expect(frame).toContain('samples are already stored');
    await app.press('R');
    frame = await until('5 new answers');
    expect(
      db.prepare("SELECT count(*) FROM qa_answer WHERE model = 'lexical' AND question = 'demo/q1'").pluck().get(),
    ).toBe(before + 5);
    app.unmount();
  });
});
