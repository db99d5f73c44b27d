import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {lexicalModel} from '../../source/services/qa-models.js';
import {runLensBuild} from '../../source/services/lens.js';
import {scoreExplanations} from '../../source/services/scoring.js';
import {ensureExplanation} from '../../source/store/questions.js';
import {listTrajectories} from '../../source/store/trajectories.js';
import {helpGroups} from '../../source/ui/help.js';
import {storeData} from '../../source/ui/data/index.js';
import {freshDb, importInto} from '../helpers/db.js';
import {SAMPLES} from '../helpers/files.js';
import {insertDurationsQuestion} from '../helpers/questions.js';
import {KEYS, renderApp} from '../helpers/ui.js';

/** The scripted demo runs with a lens build, and one question on an instance they ran, answered
 * for an agent with runs (demo-hasty) and one without (only-explained). */
async function explorer() {
  const {db} = freshDb();
  importInto(db, [join(SAMPLES, 'demo-runs')]);
  runLensBuild(db, {});
  insertDurationsQuestion(db, {id: 'demo/q1'});
  for (const agent of ['demo-hasty', 'only-explained'])
    ensureExplanation(db, {
      instance: 'demo__durations-1',
      agent,
      kind: 'original',
      text: `${agent}: it now returns 5400.`,
      source: 'test',
    });
  await scoreExplanations(db, {model: lexicalModel(), samples: 1, concurrency: 1, kinds: ['original']});
  // an options-only run is stored under "lexical [choices only]": a way of asking, not a model
  await scoreExplanations(db, {
    model: lexicalModel(),
    samples: 1,
    concurrency: 1,
    kinds: ['original'],
    choicesOnly: true,
  });
  return {db, app: renderApp({data: storeData(db, 'test.db')})};
}

/** The board row of an agent: j until the cursor is on it. */
async function onBoardRow(app: Awaited<ReturnType<typeof explorer>>['app'], agent: string) {
  let frame = await app.press('l');
  for (let i = 0; i < 20 && !new RegExp(`›${agent}`).test(frame); i++) frame = await app.press('j');
  expect(frame).toContain(`›${agent}`);
  return frame;
}

describe('explorer: pickers', () => {
  it('a chooses an agent from a list, L a lens tier; both land in the filter line as conditions', async () => {
    const {db, app} = await explorer();
    await app.ready();
    let frame = await app.press('a');
    expect(frame).toContain('Show the runs of which agent?');
    expect(frame).toMatch(/❯ 1 demo-brute-force/);
    expect(frame).toContain('j down · k up · Enter choose · Esc cancel');
    // j moves the highlight, Enter chooses it
    await app.press('j');
    frame = await app.press(KEYS.enter);
    expect(frame).toContain('matching "agent:demo-fixer"');
    const fixer = listTrajectories(db, {agent: 'demo-fixer'});
    expect(frame).toContain(`Trajectories (${fixer.length}`);
    frame = await app.press('L');
    expect(frame).toContain('Show the runs of which lens tier?');
    frame = await app.press('3');
    expect(frame).toContain('matching "agent:demo-fixer tier:ideal"');
    // Esc closes a picker without choosing
    await app.press('a');
    frame = await app.press(KEYS.escape);
    expect(frame).toContain('matching "agent:demo-fixer tier:ideal"');
    app.unmount();
  });

  it('keys in one chunk open a picker and choose in it (a fast typist, tmux send-keys)', async () => {
    const {app} = await explorer();
    await app.ready();
    const frame = await app.press('a3');
    expect(frame).toContain('matching "agent:demo-hasty"');
    app.unmount();
  });

  it('M chooses the QA model r asks; the question says which', async () => {
    const {app} = await explorer();
    await app.ready();
    await onBoardRow(app, 'demo-hasty');
    await app.press(KEYS.enter);
    let frame = await app.press(KEYS.enter);
    expect(frame).toContain('Question · demo/q1');
    frame = await app.press('M');
    expect(frame).toContain('Re-score with which QA model?');
    expect(frame).toContain('lexical (offline baseline)');
    expect(frame).not.toContain('[choices only]');
    frame = await app.press(KEYS.enter);
    expect(frame).toContain('r asks lexical');
    expect(frame).toContain('r and R now ask lexical (the offline baseline)');
    app.unmount();
  });
});

describe('explorer: cross-links', () => {
  it("T on a leaderboard row opens the agent's runs; Esc comes back to the row", async () => {
    const {db, app} = await explorer();
    await app.ready();
    await onBoardRow(app, 'demo-hasty');
    let frame = await app.press('T');
    const runs = listTrajectories(db, {agent: 'demo-hasty'});
    expect(frame).toContain(`Trajectories (${runs.length} matching "agent:demo-hasty")`);
    for (const r of runs) expect(frame).toContain(r.instance);
    frame = await app.press(KEYS.escape); // clears the filter first
    frame = await app.press(KEYS.escape);
    expect(frame).toContain('›demo-hasty');
    app.unmount();
  });

  it('T on an agent without runs says so and stays', async () => {
    const {app} = await explorer();
    await app.ready();
    await onBoardRow(app, 'only-explained');
    const frame = await app.press('T');
    expect(frame).toContain('no runs of only-explained in this database');
    expect(frame).toContain('Leaderboard');
    app.unmount();
  });

  it("T on a question opens its instance's runs, t its traced pairs", async () => {
    const {db, app} = await explorer();
    await app.ready();
    await onBoardRow(app, 'demo-hasty');
    await app.press(KEYS.enter);
    await app.press(KEYS.enter);
    const frame = await app.press('T');
    const runs = listTrajectories(db, {instance: 'demo__durations-1'});
    expect(runs.length).toBeGreaterThan(3);
    expect(frame).toContain(`Trajectories (${runs.length} matching "instance:demo__durations-1")`);
    expect(frame).not.toContain('demo__ledger-1');
    app.unmount();
  });

  it("the rankings have a cursor on the agents; T (or Enter) opens the selected agent's runs", async () => {
    const {db, app} = await explorer();
    await app.ready();
    let frame = await app.press('R');
    const first = frame.split('\n').find(l => l.startsWith('› '))!;
    expect(first).toBeDefined();
    frame = await app.press('j');
    const second = frame.split('\n').find(l => l.startsWith('› '))!;
    expect(second).not.toEqual(first);
    const agent = second.slice(2).trim().split(/\s+/)[0]!;
    frame = await app.press(KEYS.enter);
    expect(frame).toContain(`matching "agent:${agent}"`);
    expect(frame).toContain(`Trajectories (${listTrajectories(db, {agent}).length}`);
    app.unmount();
  });
});

describe('explorer: help', () => {
  it("lists the current screen's keys first and the keys that work everywhere once", async () => {
    const groups = helpGroups('stepper');
    expect(groups[0]!.title).toBe('Trace stepper (here)');
    expect(groups[1]!.title).toBe('Everywhere');
    expect(groups.filter(g => g.title === 'Everywhere')).toHaveLength(1);
    const ids = groups.flatMap(g => g.bindings.map(b => b.id));
    for (const id of ['down', 'up', 'pageDown', 'back', 'help', 'copy'])
      expect(ids.filter(x => x === id)).toHaveLength(1);
    // and on screen
    const {app} = await explorer();
    await app.ready();
    await app.press(KEYS.enter);
    const frame = await app.press('?');
    expect(frame.split('\n')[2]).toBe('Trajectory (here)');
    app.unmount();
  });
});
