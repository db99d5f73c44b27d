import {join} from 'node:path';
import {beforeAll, describe, expect, it} from 'vitest';
import type {Db} from '../../source/store/db.js';
import {listTrajectories} from '../../source/store/trajectories.js';
import {storeData} from '../../source/ui/data/index.js';
import {trajectoryScreen} from '../../source/ui/screens/trajectory/keys.js';
import {freshDb, importInto} from '../helpers/db.js';
import {SAMPLES} from '../helpers/files.js';
import {KEYS, renderApp} from '../helpers/ui.js';

let db: Db;
let run: number;
beforeAll(() => {
  db = freshDb().db;
  importInto(db, [join(SAMPLES, 'mini-swe-agent-multi', 'results-baseline-untruncated')]);
  run = listTrajectories(db, {instance: 'astropy__astropy-14309'})[0]!.id;
});

describe('code reasoning in the explorer', () => {
  it("the step list shows each step's families and a reasoning line under the timeline; r and R go between reasoning steps; the step shows its marks", async () => {
    const app = renderApp({data: storeData(db, 'test.db'), initial: {stack: [trajectoryScreen(run)]}});
    let frame = await app.ready();
    expect(frame).toContain('reason ··BBD···D');
    expect(frame).toMatch(/3 O {3}BE —/);
    frame = await app.press('r');
    expect(frame).toMatch(/› +3 O/);
    frame = await app.press('r');
    expect(frame).toMatch(/› +4 O/);
    frame = await app.press('R');
    expect(frame).toMatch(/› +3 O/);
    await app.press(KEYS.enter);
    frame = await app.press('G');
    expect(frame).toContain('E return value / exception · raises');
    expect(frame).toContain('«raises IndexError»');
    // the next reasoning step from the step screen
    frame = await app.press('r');
    expect(frame).toContain('step 4 of 9');
    app.unmount();
  });

  it('D on the list opens the reasoning report: the same lines as deltalens reasoning report', async () => {
    const app = renderApp({data: storeData(db, 'test.db')});
    await app.ready();
    const frame = await app.press('D');
    expect(frame).toContain('Code reasoning (default detector): 4 runs');
    expect(frame).toMatch(/results-baseline-untruncated +4 +75%/);
    app.unmount();
  });
});

describe('marked spans', () => {
  it('a thought wrapped to a width keeps its marks on the right lines and columns', async () => {
    const {markedBlock} = await import('../../source/ui/display-lines.js');
    const text = 'First line.\n\nThen `total` becomes 1800 on the second unit of the input.';
    const start = text.indexOf('`total`');
    const lines = markedBlock(text, 20, [[start, start + '`total` becomes 1800'.length]]);
    const marked = lines.filter(l => l.marks).map(l => l.marks!.map(([a, b]) => l.text.slice(a, b)).join('|'));
    expect(marked.join('|').replace(/\|/g, '')).toBe('`total` becomes 1800');
    expect(lines.map(l => l.text)).toEqual([
      'First line.',
      '',
      'Then `total` becomes',
      ' 1800 on the second ',
      'unit of the input.',
    ]);
    expect(lines[2]!.marks).toEqual([[5, 20]]);
    expect(lines[3]!.marks).toEqual([[0, 5]]);
  });
});
