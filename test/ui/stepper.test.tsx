import {join} from 'node:path';
import {beforeAll, describe, expect, it} from 'vitest';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {tracePair} from '../../source/services/tracing.js';
import type {Db} from '../../source/store/db.js';
import {storeData} from '../../source/ui/data/index.js';
import {readFileSync, writeFileSync} from 'node:fs';
import {freshDb, importInto} from '../helpers/db.js';
import {tempDir} from '../helpers/files.js';
import {insertDurationsQuestion} from '../helpers/questions.js';
import {KEYS, renderApp} from '../helpers/ui.js';
import {ensureExplanation} from '../../source/store/questions.js';

let db: Db;
beforeAll(async () => {
  db = freshDb().db;
  for (const label of ['gold', 'agent-ineffective']) {
    await tracePair(
      db,
      {
        kind: 'patch',
        repo: join(PROJECTS_DIR, 'durations', 'repo'),
        patch: join(PROJECTS_DIR, 'durations', 'patches', `${label}.diff`),
        copy: true,
      },
      {
        python: process.env.DELTALENS_PYTHON ?? 'python3',
        test: 'tests/test_parse.py::test_compound_duration',
        instance: 'demo__durations-1',
        label,
        pytestPlugins: false,
        reruns: false,
        sandbox: 'prefer', // our own demo project
      },
    );
  }
}, 60_000);

describe('trace stepper', () => {
  it('lists traced pairs, opens the stepper, jumps to the delta, steps, watches and finds', async () => {
    const app = renderApp({data: storeData(db, 'test.db')});
    await app.ready();
    let frame = await app.press('t');
    expect(frame).toContain('Traced pairs (2)');
    expect(frame).toMatch(/gold\s+failed→passed\s+outcome · parse_duration:21/);
    expect(frame).toContain('#1 runs test_parse.py::test_compound_duration'); // narrow: the selected pair's test in the title
    expect(frame).toContain('∅ no effect');
    // y on a pair copies the command that prints its rows
    const copied: string[] = [];
    const other = renderApp({data: storeData(db, 'test.db'), clipboard: text => void copied.push(text)});
    await other.ready();
    await other.press('t');
    expect(await other.press('y')).toContain('copied: deltalens steps 1 --delta');
    expect(copied).toEqual(['deltalens steps 1 --delta']);
    other.unmount();

    frame = await app.press(KEYS.enter);
    expect(frame).toContain('Trace stepper · pair #1');
    expect(frame).toContain('row 1/');
    expect(frame).toMatch(/buggy · test_compound_duration/);
    expect(frame).toMatch(/patched · test_compound_duration/);

    frame = await app.press('d');
    expect(frame).toContain('◆ DELTA POINT');
    expect(frame).toContain('control flow split: only buggy runs line 21');
    expect(frame).toMatch(/▶ {2}21 {9}total = amount \* UNIT_SECONDS\[unit\]/);
    expect(frame).toMatch(/▶ {2}20 {9}seen\.append\(unit\)/); // the patched side waits on line 20
    expect(frame).toContain('≠total = 3600');
    expect(frame).toContain('≠total = 0');
    expect(frame).toContain('↑ test_compound_duration tests/test_parse.py:11');

    frame = await app.press('n');
    expect(frame).toContain('only patched runs line 21');
    frame = await app.press('o');
    expect(frame).toMatch(/depth 1 .*same statement/);

    // a watch from recorded state, kept while stepping
    await app.press('d');
    await app.press('x');
    for (const ch of 'len(seen)') await app.press(ch);
    frame = await app.press(KEYS.enter);
    expect(frame).toContain('x len(seen) [recorded] buggy 1 | patched 1');
    frame = await app.press('x');
    for (const ch of 'unit.upper()') await app.press(ch);
    frame = await app.press(KEYS.enter);
    expect(frame).toContain('needs a live re-run (press L)');
    frame = await app.press('s');
    expect(frame).toContain('x len(seen) [recorded]');

    // find a variable by name
    await app.press('g');
    await app.press('/');
    for (const ch of 'amount') await app.press(ch);
    frame = await app.press(KEYS.enter);
    expect(frame).toMatch(/row \d+\/\d+ · depth 2/);
    expect(frame).toContain('amount = 1');

    // e: both sides' values in full, across the screen; e again: the panes
    await app.press('d');
    frame = await app.press('e');
    expect(frame).toContain('values in full (e: back to the panes)');
    expect(frame).toMatch(/^buggy · parse_duration/m);
    expect(frame).toMatch(/^patched.* · parse_duration/m);
    expect(frame).toContain('≠ total = 3600');
    expect(frame).toContain('≠ total = 0');
    frame = await app.press('e');
    expect(frame).not.toContain('values in full');
    expect(frame).toContain('≠total = 3600');

    frame = await app.press('D');
    expect(frame).toContain('evidence:');
    expect(frame).toContain("options: none (the paper's Algorithm 1)");
    expect(frame).toContain('patch-modified functions: durations/parse.py:parse_duration');

    // Esc closes the summary first, then leaves the stepper
    frame = await app.press(KEYS.escape);
    expect(frame).not.toContain('evidence:');
    expect(frame).toContain('Trace stepper');
    frame = await app.press(KEYS.escape);
    expect(frame).toContain('Traced pairs (2)');
    app.unmount();
  });

  it("t on a run whose own patch was never traced shows its instance's pairs, and says so", async () => {
    const dir = tempDir();
    const file = join(dir, 'run.jsonl');
    writeFileSync(
      file,
      `${[{type: 'trajectory', instance: 'demo__durations-1', agent: 'agent-y'}, {type: 'step', tool: 'bash', action: 'ls'}, {type: 'end'}].map(x => JSON.stringify(x)).join('\n')}\n`,
    );
    importInto(db, [file]);
    const app = renderApp({data: storeData(db, 'test.db')});
    await app.ready();
    await app.press(KEYS.enter);
    const frame = await app.press('t');
    expect(frame).toMatch(/Traced pairs \(2\) of demo__durations-1 \(none from #\d+'s own patch\)/);
    expect(frame).toMatch(/gold\s+failed→passed/);
    app.unmount();
  });

  it('t on a question opens the traced pairs of its instance', async () => {
    insertDurationsQuestion(db, {id: 'demo/qt'});
    ensureExplanation(db, {
      instance: 'demo__durations-1',
      agent: 'agent-q',
      kind: 'original',
      text: 'It returns 5400.',
      source: 'test',
    });
    const app = renderApp({
      data: storeData(db, 'test.db'),
      initial: {
        stack: [
          {kind: 'board', model: null, list: {cursor: 0, top: 0}},
          {
            kind: 'question',
            id: 'demo/qt',
            agent: 'agent-q',
            explanations: 'original',
            model: null,
            scroll: 0,
            showKey: true,
            showPrompt: false,
            explanationId: null,
          },
        ],
      },
    });
    let frame = await app.ready();
    expect(frame).toContain('Question · demo/qt');
    frame = await app.press('t');
    expect(frame).toContain('Traced pairs (2) of demo__durations-1');
    expect(frame).toMatch(/gold\s+failed→passed/);
    app.unmount();
  });

  it("opens the traced pairs of a trajectory's patch from the trajectory (t)", async () => {
    const {db: own} = freshDb();
    const dir = tempDir();
    const file = join(dir, 'run.jsonl');
    const patch = readFileSync(join(PROJECTS_DIR, 'durations', 'patches', 'agent-wrong.diff'), 'utf8');
    writeFileSync(
      file,
      `${[
        {type: 'trajectory', instance: 'demo__durations-1', agent: 'agent-x'},
        {type: 'step', tool: 'bash', action: 'edit'},
        {type: 'end', patch},
      ]
        .map(x => JSON.stringify(x))
        .join('\n')}\n`,
    );
    importInto(own, [file]);
    await tracePair(
      own,
      {
        kind: 'patch',
        repo: join(PROJECTS_DIR, 'durations', 'repo'),
        patch: join(PROJECTS_DIR, 'durations', 'patches', 'agent-wrong.diff'),
        copy: true,
      },
      {
        python: process.env.DELTALENS_PYTHON ?? 'python3',
        test: 'tests/test_parse.py::test_compound_duration',
        trajectory: 1,
        label: 'agent-x patch',
        pytestPlugins: false,
        reruns: false,
        sandbox: 'prefer', // our own demo project
      },
    );
    const app = renderApp({data: storeData(own, 'test.db')});
    await app.ready();
    await app.press(KEYS.enter);
    let frame = await app.press('t');
    expect(frame).toContain('Traced pairs (1) of trajectory #1');
    expect(frame).toContain('agent-x patch');
    frame = await app.press(KEYS.enter);
    expect(frame).toContain('Trace stepper · pair #1');
    app.unmount();
  }, 60_000);

  it('states ∅ plainly with the evidence when nothing differs', async () => {
    const app = renderApp({data: storeData(db, 'test.db')});
    await app.ready();
    await app.press('t');
    await app.press('j');
    const frame = await app.press(KEYS.enter);
    expect(frame).toContain('Nothing was recorded on either side');
    expect(frame).toContain('∅ no effect: no patch-modified function ran on either side');
    app.unmount();
  });

  it('runs a watch live with deltatrace eval when recorded state cannot answer', async () => {
    const app = renderApp({data: storeData(db, 'test.db')});
    await app.ready();
    await app.press('t');
    await app.press(KEYS.enter);
    await app.press('d');
    await app.press('x');
    for (const ch of 'unit.upper()') await app.press(ch);
    await app.press(KEYS.enter);
    await app.press('L');
    const deadline = Date.now() + 30_000;
    while (!app.frame().includes('[live re-run]') && Date.now() < deadline) await new Promise(r => setTimeout(r, 100));
    // the buggy side ran line 21 once (hit 1); the patched side waits on line 20
    expect(app.frame()).toContain("x unit.upper() [live re-run] buggy 'H' | patched 'H'");
    app.unmount();
  }, 60_000);
});
