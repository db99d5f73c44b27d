/**
 * Deep links (`deltalens explore --trajectory N --step K`, `--question ID`, `--pair N`): each is
 * checked against a real store first, then opens its screen with the way back behind it.
 */
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {resolveLink} from '../../source/commands/explore.js';
import {storeData} from '../../source/ui/data/index.js';
import {linkStack} from '../../source/ui/state.js';
import {listTrajectories} from '../../source/store/trajectories.js';
import {freshDb, importInto, questionsDb} from '../helpers/db.js';
import {SAMPLES} from '../helpers/files.js';
import {TRACES_DIR} from '../../source/services/demo.js';
import {importTracePair} from '../../source/services/trace-ingest.js';
import {KEYS, renderApp} from '../helpers/ui.js';

describe('deep links', () => {
  it('--trajectory N --step K opens that step; Esc goes to the trajectory, then the list', async () => {
    const {db} = freshDb();
    importInto(db, [join(SAMPLES, 'demo-runs')]);
    const t = listTrajectories(db, {text: 'brute-force'})[0]!;
    const link = resolveLink(db, {trajectory: t.id, step: 3})!;
    expect(link).toEqual({kind: 'trajectory', trajectory: t.id, step: 2});
    const app = renderApp({data: storeData(db, 'test.db'), initial: {stack: linkStack(link)}});
    let frame = await app.ready();
    expect(frame).toMatch(/step 3\b/i);
    frame = await app.press(KEYS.escape);
    expect(frame).toContain(`#${t.id}`);
    expect(frame).toMatch(/1 Steps/);
    frame = await app.press(KEYS.escape);
    expect(frame).toMatch(/trajectories/i);
    app.unmount();
    expect(() => resolveLink(db, {trajectory: 999_999})).toThrow('no trajectory with id 999999');
    expect(() => resolveLink(db, {trajectory: t.id, step: 10_000})).toThrow(/has \d+ steps \(asked for step 10000\)/);
    expect(() => resolveLink(db, {pair: 5})).toThrow('no traced pair #5');
  });

  it("--question ID opens the question with an agent's explanation; an unknown one is said", async () => {
    const {db} = await questionsDb();
    const q = db
      .prepare("SELECT id FROM question WHERE type = 'e2e_intent' ORDER BY id LIMIT 1")
      .pluck()
      .get() as string;
    const link = resolveLink(db, {question: q})!;
    expect(link).toMatchObject({kind: 'question', question: q, explanations: 'original'});
    const app = renderApp({data: storeData(db, 'test.db'), initial: {stack: linkStack(link)}});
    let frame = await app.ready();
    expect(frame).toContain(`Question · ${q}`);
    frame = await app.press(KEYS.escape);
    expect(frame).toContain('Leaderboard');
    app.unmount();
    expect(() => resolveLink(db, {question: 'nope/q'})).toThrow('no question nope/q');
    expect(() => resolveLink(db, {question: q, agent: 'nobody'})).toThrow(/nobody has no explanation for/);
  });

  it("--pair N: Esc closes the stepper's summary first, then lands on the pairs list with pair N selected", async () => {
    const {db} = freshDb();
    const dir = join(TRACES_DIR, 'sympy__sympy-20801');
    for (const label of ['one', 'two', 'three'])
      importTracePair(db, join(dir, 'buggy.jsonl'), join(dir, 'fixed.jsonl'), {
        instance: 'sympy__sympy-20801',
        label,
        test: 'reproduction test',
        options: ['match-by-text'],
      });
    const link = resolveLink(db, {pair: 3})!;
    expect(link).toEqual({kind: 'pair', pair: 3, index: 2});
    const app = renderApp({data: storeData(db, 'test.db'), initial: {stack: linkStack(link)}});
    let frame = await app.ready();
    frame = await app.press('D');
    expect(frame).toMatch(/delta/i);
    frame = await app.press(KEYS.escape);
    // still the stepper: the summary closed
    expect(frame).toMatch(/row \d+\/\d+/);
    frame = await app.press(KEYS.escape);
    expect(frame).toContain('Traced pairs (3)');
    expect(frame).toMatch(/› +3 sympy__sympy-20801 +three/);
    app.unmount();
  });
});
