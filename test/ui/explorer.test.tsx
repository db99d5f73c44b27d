import {describe, expect, it, vi} from 'vitest';
import {join} from 'node:path';
import {storeData} from '../../source/ui/data/index.js';
import {listTrajectories} from '../../source/store/trajectories.js';
import {freshDb, importInto} from '../helpers/db.js';
import {SAMPLES} from '../helpers/files.js';
import {KEYS, renderApp} from '../helpers/ui.js';

function explorer() {
  const {db} = freshDb();
  importInto(db, [join(SAMPLES, 'mini-swe-agent-multi'), join(SAMPLES, 'swe-agent'), join(SAMPLES, 'openhands')]);
  const onQuit = vi.fn();
  return {db, onQuit, app: renderApp({data: storeData(db, 'test.db'), onQuit})};
}

describe('explorer', () => {
  it('walks list → trajectory → step → back → quit', async () => {
    const {db, app, onQuit} = explorer();
    const rows = listTrajectories(db, {});
    let frame = await app.ready();
    expect(frame).toContain(`Trajectories (${rows.length})`);
    expect(frame).toContain(rows[0]!.instance);
    expect(frame).toContain('? help');

    frame = await app.press('j');
    frame = await app.press(KEYS.enter);
    const second = rows[1]!;
    expect(frame).toContain(`Trajectory #${second.id}`);
    expect(frame).toContain(second.instance);
    expect(frame).toMatch(/1 Steps/);
    expect(frame).toMatch(/intent [EIVO]+ E explore I implement V verify O orchestrate/);

    frame = await app.press('j');
    frame = await app.press(KEYS.enter);
    expect(frame).toContain(`step 2 of ${second.steps}`);
    expect(frame).toContain('Thought');
    expect(frame).toContain('Action · bash');
    expect(frame).toContain('Observation');
    expect(frame).toMatch(/Intent: (Exploration|Implementation|Verification|Orchestration) — rule/);

    frame = await app.press('n');
    expect(frame).toContain(`step 3 of ${second.steps}`);

    frame = await app.press(KEYS.escape);
    expect(frame).toContain(`Trajectory #${second.id}`);
    expect(frame).not.toContain('step 3 of');
    frame = await app.press(KEYS.escape);
    expect(frame).toContain(`Trajectories (${rows.length})`);

    await app.press('q', {expectChange: false});
    expect(onQuit).toHaveBeenCalledTimes(1);
  });

  it('shows the explanation and the patch of a run', async () => {
    const {db, app} = explorer();
    const sweAgent = listTrajectories(db, {agent: 'swe-agent'})[0]!;
    await app.ready();
    await app.press('/');
    for (const char of 'pydicom') await app.press(char);
    let frame = await app.press(KEYS.enter);
    expect(frame).toContain('Trajectories (1 matching "pydicom")');
    frame = await app.press(KEYS.enter);
    expect(frame).toContain(`Trajectory #${sweAgent.id}`);
    frame = await app.press('2');
    expect(frame).toContain('The `reproduce_bug.py` script has been successfully removed');
    frame = await app.press('3');
    expect(frame).toContain('diff --git a/pydicom/pixel_data_handlers/numpy_handler.py');
    frame = await app.press('4');
    expect(frame).toContain('status unknown');
  });

  it('sorts, pages, and keeps up with keys typed faster than a render', async () => {
    const {db, app} = explorer();
    await app.ready();
    let frame = await app.press('s'); // id → instance
    expect(frame).toMatch(/instance↑/);
    const byInstance = listTrajectories(db, {sort: 'instance'});
    expect(frame.split('\n')[2]).toContain(byInstance[0]!.instance);
    // "jjj\r" in one chunk opens the fourth row, not the first.
    frame = await app.press('jjj\r');
    expect(frame).toContain(`Trajectory #${byInstance[3]!.id}`);
    frame = await app.press(KEYS.escape);
    frame = await app.press('G');
    expect(frame).toContain(byInstance.at(-1)!.instance);
  });

  it('keys in one chunk after a tab switch act on the new tab: "1G" from the patch ends where "1" then "G" does', async () => {
    const open = async () => {
      const e = explorer();
      await e.app.ready();
      await e.app.press('/');
      for (const char of 'pydicom') await e.app.press(char);
      await e.app.press(KEYS.enter);
      await e.app.press(KEYS.enter);
      await e.app.press('3'); // the patch: a few dozen lines; the steps tab has more rows
      return e.app;
    };
    const slow = await open();
    await slow.press('1');
    const apart = await slow.press('G');
    expect(apart).toMatch(/›\s*\d+/); // a step row is selected
    slow.unmount();
    const fast = await open();
    await fast.press('1G');
    const deadline = Date.now() + 2000;
    while (fast.frame() !== apart && Date.now() < deadline) await new Promise(r => setTimeout(r, 20));
    expect(fast.frame()).toBe(apart);
    fast.unmount();
  });

  it('h/l, ←/→ and Shift+Tab/Tab move between tabs, and the active tab is bracketed without colour', async () => {
    const {app} = explorer();
    await app.ready();
    let frame = await app.press(KEYS.enter);
    expect(frame).toContain('[1 Steps]');
    frame = await app.press('l');
    expect(frame).toContain('[2 Expl');
    frame = await app.press('\x1b[C'); // →
    expect(frame).toContain('[3 Patch]');
    frame = await app.press('h');
    expect(frame).toContain('[2 Expl');
    frame = await app.press('\x1b[Z'); // Shift+Tab
    expect(frame).toContain('[1 Steps]');
    frame = await app.press('\x1b[Z'); // wraps to the last tab
    expect(frame).toContain('[4 Info]');
    frame = await app.press('\t');
    expect(frame).toContain('[1 Steps]');
    frame = await app.press('\x1b[D'); // ←
    expect(frame).toContain('[4 Info]');
  });

  it('q goes back one screen and quits only from the list; Ctrl+C quits from anywhere', async () => {
    const first = explorer();
    await first.app.ready();
    await first.app.press(KEYS.enter);
    let frame = await first.app.press(KEYS.enter);
    expect(frame).toMatch(/step 1 of/);
    frame = await first.app.press('q');
    expect(frame).toMatch(/1 Steps/);
    frame = await first.app.press('q');
    expect(frame).toContain('Trajectories (');
    expect(first.onQuit).not.toHaveBeenCalled();
    await first.app.press('q', {expectChange: false});
    expect(first.onQuit).toHaveBeenCalledTimes(1);
    const second = explorer();
    await second.app.ready();
    await second.app.press(KEYS.enter);
    await second.app.press(KEYS.ctrlC, {expectChange: false});
    expect(second.onQuit).toHaveBeenCalledTimes(1);
  });

  it("y copies what is under the cursor: a run's file on the list, the step's command on the timeline", async () => {
    const {db} = freshDb();
    importInto(db, [join(SAMPLES, 'swe-agent')]);
    const copied: string[] = [];
    const app = renderApp({data: storeData(db, 'test.db'), clipboard: text => void copied.push(text)});
    await app.ready();
    let frame = await app.press('y');
    const t = listTrajectories(db, {})[0]!;
    expect(copied).toEqual([expect.stringContaining('pydicom__pydicom-1458.traj')]);
    expect(frame).toContain(`copied: ${copied[0]}`);
    await app.press(KEYS.enter);
    await app.press('y', {expectChange: false});
    frame = await app.until('copied: ');
    expect(copied).toHaveLength(2);
    expect(copied[1]).toBe('create reproduce_bug.py'); // the first step's command
    expect(copied[1]!.length).toBeGreaterThan(0);
    expect(t.id).toBeGreaterThan(0);
    app.unmount();
  });

  it('lists every key in the help overlay and closes it with Esc', async () => {
    const {app} = explorer();
    await app.ready();
    let frame = await app.press('?');
    expect(frame).toContain('Trajectory list (here)');
    expect(frame).toContain('filter by instance, agent or model');
    frame = await app.press(KEYS.escape);
    expect(frame).toContain('Trajectories (');
  });

  it('says so when a filter matches nothing, and Esc clears it', async () => {
    const {app} = explorer();
    await app.ready();
    await app.press('/');
    let frame = await app.press('z');
    frame = await app.press('z');
    expect(frame).toContain('No trajectories match');
    frame = await app.press(KEYS.escape);
    expect(frame).not.toContain('No trajectories match');
  });
});
