import {chmodSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {buildQuestions} from '../../source/services/questions/build.js';
import type {Db} from '../../source/store/db.js';
import {getQuestion, listReviews} from '../../source/store/questions.js';
import {storeData} from '../../source/ui/data/index.js';
import {questionScreen} from '../../source/ui/screens/question/keys.js';
import {freshDb} from '../helpers/db.js';
import {tempDir} from '../helpers/files.js';
import {durationsBuild, insertDurationsQuestion} from '../helpers/questions.js';
import {KEYS, renderApp} from '../helpers/ui.js';

const P = join(PROJECTS_DIR, 'durations');
const ID = 'demo__durations-1/built/e2e_effect/wrong';
let db: Db;
const saved = {
  EDITOR: process.env.EDITOR,
  VISUAL: process.env.VISUAL,
  DELTALENS_ANNOTATOR: process.env.DELTALENS_ANNOTATOR,
};
beforeAll(async () => {
  db = freshDb().db;
  await buildQuestions(
    db,
    await durationsBuild({
      agentPatches: [{name: 'wrong', file: join(P, 'patches', 'agent-wrong.diff')}],
      types: ['e2e_effect'],
    }),
  );
  insertDurationsQuestion(db, {id: 'hand-written'});
  // an "editor" that makes "The test passed." the answer after the patch, then (second time)
  // rewords that distractor instead
  const dir = tempDir();
  const editor = join(dir, 'editor.py');
  writeFileSync(
    editor,
    `import json, os, sys
f = sys.argv[1]
d = json.load(open(f))
passed = [c for c in d['choices'] if c['text'] == 'The test passed.']
if os.path.exists(${JSON.stringify(join(dir, 'second'))}):
    d['answer'] = [d['answer'][0], d['answer'][0]]
    passed[0]['text'] = 'The test failed at line 11 with exception: KeyError.'
else:
    open(${JSON.stringify(join(dir, 'second'))}, 'w').close()
    d['answer'] = [d['answer'][0], passed[0]['label']]
json.dump(d, open(f, 'w'))
`,
  );
  chmodSync(editor, 0o755);
  process.env.EDITOR = `python3 ${editor}`;
  delete process.env.VISUAL;
  process.env.DELTALENS_ANNOTATOR = 'rita';
}, 120_000);
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

const texts = () => getQuestion(db, ID)!.choices.map(c => c.text);

describe('reviewing a built question on its screen', () => {
  it('E edits it in $EDITOR: a refused edit changes nothing and comes back to be fixed; X rejects with a note, A accepts', async () => {
    const app = renderApp({
      data: storeData(db, 'test.db'),
      initial: {stack: [questionScreen(ID, 'wrong', 'original')]},
    });
    await app.ready();
    let frame = await app.press('G');
    expect(frame).toContain('Review: not reviewed yet (A accept · X reject · E edit)');
    await app.press('E', {expectChange: false});
    frame = await app.until('edit NOT saved');
    expect(texts()).toContain('The test passed.');
    expect(listReviews(db, ID)).toEqual([]);
    await app.press('E', {expectChange: false});
    await app.until('edit saved');
    expect(texts()).toContain('The test failed at line 11 with exception: KeyError.');
    expect(texts()).not.toContain('The test passed.');
    await app.press('X');
    for (const c of 'dup') await app.press(c);
    await app.press(KEYS.enter);
    await app.until('rejected as rita with a note');
    frame = await app.press('G', {expectChange: false});
    expect(frame).toContain('Review: rejected by rita');
    await app.press('A');
    await app.until('accepted as rita');
    expect(listReviews(db, ID).map(r => [r.action, r.reviewer, r.note])).toEqual([
      ['edited', 'rita', null],
      ['rejected', 'rita', 'dup'],
      ['accepted', 'rita', null],
    ]);
    app.unmount();
  });

  it('a question not built here is not reviewed on its screen (f flags it)', async () => {
    const app = renderApp({
      data: storeData(db, 'test.db'),
      initial: {stack: [questionScreen('hand-written', 'nobody', 'original')]},
    });
    await app.ready();
    const frame = await app.press('A');
    expect(frame).toContain('only questions made by questions build are accepted, rejected or edited here');
    expect(listReviews(db, 'hand-written')).toEqual([]);
    app.unmount();
  });
});
