/**
 * Question construction on a real library installed here: click, with its option-prefix fix
 * in _split_opt undone (the buggy tree), the fix back as the developer's and an agent's patch.
 */
import {spawnSync} from 'node:child_process';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {readProvenance} from '../../source/core/questions/provenance.js';
import {buildQuestions} from '../../source/services/questions/build.js';
import {questionProvenance} from '../../source/store/questions.js';
import {CLICK_TEST, clickTrees, findClick, hasFix} from '../helpers/click.js';
import {freshDb} from '../helpers/db.js';
import {tempDir} from '../helpers/files.js';

const click = findClick();

describe.skipIf(!click || !hasFix(click))('questions build on a real library (click)', () => {
  it("builds all four types: the asserted output, the outcomes, and _split_opt's return value at the delta", async () => {
    const dir = tempDir();
    const {buggy, fixed, parser} = clickTrees(click!, dir);
    const diff = spawnSync(
      'diff',
      ['-u', '--label', 'a/click/parser.py', '--label', 'b/click/parser.py', parser, join(fixed, 'click', 'parser.py')],
      {encoding: 'utf8'},
    ).stdout;
    writeFileSync(join(dir, 'fix.diff'), diff);
    const {db} = freshDb();
    const r = await buildQuestions(db, {
      instance: 'click__split-opt',
      buggyDir: buggy,
      fixedDir: fixed,
      agentPatches: [{name: 'refixed', file: join(dir, 'fix.diff')}],
      test: CLICK_TEST,
      python: process.env.DELTALENS_PYTHON ?? 'python3',
      sandbox: 'prefer', // the library as installed here, our own test
      seed: 0,
      timeoutS: 120,
      types: ['e2e_intent', 'e2e_effect', 'local_intent', 'local_effect'],
    });
    expect(r.excluded).toEqual([]);
    const key = (type: string) => {
      const q = r.questions.find(b => b.question.type === type)!.question;
      return q.answer.map(l => q.choices.find(c => c.label === l)!.text);
    };
    expect(key('e2e_intent')).toEqual(['"hello ada\\nhello ada\\n"']);
    expect(key('e2e_effect')).toEqual([
      'The test failed at line 13 with exception: AssertionError.',
      'The test passed.',
    ]);
    expect(key('local_intent')).toEqual(['_split_opt(opt)']);
    expect(key('local_effect')).toEqual(['_split_opt(opt)']);
    // each type's provenance, as stored, reads back as that type's
    for (const b of r.questions)
      expect(readProvenance(b.question.type, questionProvenance(db, b.question.id)!.provenance).problems).toEqual([]);
  }, 240_000);
});
