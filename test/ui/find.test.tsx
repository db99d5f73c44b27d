/**
 * `/` finds text in a step (thought, action, observation) or a text tab; n/N go between the
 * lines that hold it; Esc clears the search, and n is the next step again.
 */
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {storeData} from '../../source/ui/data/index.js';
import {listTrajectories} from '../../source/store/trajectories.js';
import {freshDb, importInto} from '../helpers/db.js';
import {SAMPLES} from '../helpers/files.js';
import {KEYS, renderApp} from '../helpers/ui.js';

describe('find in a text view', () => {
  it('/ on the patch tab jumps to the match; n and N move between matches; Esc clears', async () => {
    const {db} = freshDb();
    importInto(db, [join(SAMPLES, 'swe-agent')]);
    const t = listTrajectories(db, {})[0]!;
    const app = renderApp({
      data: storeData(db, 'test.db'),
      initial: {stack: [{kind: 'trajectory', id: t.id, tab: 'patch', steps: {cursor: 0, top: 0}, scroll: 0}]},
    });
    await app.ready();
    let frame = await app.press('/');
    expect(frame).toContain('find: ▏');
    for (const c of 'required_elements') frame = await app.press(c);
    frame = await app.press(KEYS.enter);
    const first = frame.match(/"required_elements" at line (\d+) \((\d+) lines? match\)/);
    expect(first).not.toBeNull();
    const lines = Number(first![2]);
    expect(lines).toBeGreaterThan(0);
    // the matching line is on screen
    expect(
      frame
        .split('\n')
        .slice(2, -1)
        .some(l => l.includes('required_elements')),
    ).toBe(true);
    expect(lines).toBeGreaterThan(1);
    frame = await app.press('n');
    const second = Number(frame.match(/at line (\d+)/)![1]);
    expect(second).toBeGreaterThan(Number(first![1]));
    frame = await app.press('N');
    expect(Number(frame.match(/at line (\d+)/)![1])).toBe(Number(first![1]));
    frame = await app.press(KEYS.escape);
    expect(frame).not.toContain('at line');
    expect(frame).toContain(`Trajectory #${t.id}`); // Esc cleared the search, it did not go back
    app.unmount();
  });

  it('on a step, n is the next match while a search is kept and the next step once it is cleared', async () => {
    const {db} = freshDb();
    importInto(db, [join(SAMPLES, 'swe-agent')]);
    const t = listTrajectories(db, {})[0]!;
    const app = renderApp({
      data: storeData(db, 'test.db'),
      initial: {
        stack: [
          {kind: 'trajectory', id: t.id, tab: 'steps', steps: {cursor: 0, top: 0}, scroll: 0},
          {kind: 'step', id: t.id, idx: 0, scroll: 0},
        ],
      },
    });
    let frame = await app.ready();
    expect(frame).toContain('step 1 of');
    await app.press('/');
    for (const c of 'zzz-not-there') await app.press(c);
    frame = await app.press(KEYS.enter);
    expect(frame).toContain('"zzz-not-there" is not in this text');
    frame = await app.press(KEYS.escape);
    frame = await app.press('n');
    expect(frame).toContain('step 2 of');
    app.unmount();
  });
});
