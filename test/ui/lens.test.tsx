import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {runLensBuild} from '../../source/services/lens.js';
import {storeData} from '../../source/ui/data/index.js';
import {listTrajectories} from '../../source/store/trajectories.js';
import {freshDb, importInto} from '../helpers/db.js';
import {SAMPLES} from '../helpers/files.js';
import {KEYS, renderApp} from '../helpers/ui.js';

/** The scripted demo runs (brute-force, unverified, …) in a real database with a lens build. */
function explorer() {
  const {db} = freshDb();
  importInto(db, [join(SAMPLES, 'demo-runs')]);
  runLensBuild(db, {});
  process.env.DELTALENS_ANNOTATOR = 'ann';
  return {db, app: renderApp({data: storeData(db, 'test.db')})};
}

async function openRun(app: ReturnType<typeof explorer>['app'], filter: string) {
  await app.ready();
  await app.press('/');
  for (const char of filter) await app.press(char);
  await app.press(KEYS.enter);
  return app.press(KEYS.enter);
}

describe('explorer: process lens', () => {
  it('the timeline of a brute-force pass shows its tier, mechanism, waste spans and where it leaves the reference', async () => {
    const {app} = explorer();
    const frame = await openRun(app, 'brute-force');
    expect(frame).toMatch(/intent EIVIVVVIVO/);
    // what decides first; a lens line too long for the screen wraps to a second line
    expect(frame.replace(/\n/g, ' ')).toMatch(
      /\[Lucky C2 brute-force convergence\] Q \d+\.\d · ◆ leaves its reference at \d+ · waste: regression cycles 2–8; blind retries 5–7/,
    );
    // the step where it leaves the reference is marked ◆
    expect(frame).toMatch(/3 V ◆ bash\s+python -m pytest tests -q/);
    // step rows: ~ marks waste steps
    expect(frame).toMatch(/5 V ~ bash\s+python -m pytest tests -q/);
    // the evidence is in the Info tab
    await app.press('4');
    const info = await app.press('G');
    expect(info).toContain('Process lens (AgentLens)');
    expect(info).toContain('mechanism     C2 brute-force convergence');
    expect(info).toContain('3× the same command with no edit between (steps 5, 6, 7)');
    expect(info).toMatch(/reference {5}5 passing run\(s\) of the task without this one/);
  });

  it('an unverified pass is C1 and says so', async () => {
    const {app} = explorer();
    const frame = await openRun(app, 'hasty');
    expect(frame.replace(/\n/g, ' ')).toMatch(
      /\[Lucky C1 minimal & unverified\] Q \d+\.\d · ◆ leaves its reference at 3 · waste: no final verification 2/,
    );
  });

  it('P shows the reference tree without the run, its path and where it leaves', async () => {
    const {db, app} = explorer();
    await openRun(app, 'brute-force');
    const self = listTrajectories(db, {text: 'brute-force'})[0]!.id;
    const frame = await app.press('P');
    expect(frame).toContain(`PTA reference · trajectory #${self}`);
    expect(frame.replace(/\s+/g, ' ')).toMatch(
      /a prefix tree built from 5 passing run\(s\) (#\d+ ){5}— never the run itself/,
    );
    expect(frame).toMatch(/root {2}×5/);
    expect(frame).toMatch(/▶ read durations\/parse\.py {2}×\d/);
    expect(frame).toMatch(new RegExp(`◆ #${self} leaves here at step \\d+`));
    // no node of the tree lists the run itself
    const nodes = frame.split('\n').filter(line => / ×\d+ /.test(line));
    expect(nodes.length).toBeGreaterThan(5);
    for (const line of nodes) expect(line).not.toMatch(new RegExp(`#${self}(\\s|$)`));
    // D: the DAG view merges agreeing suffixes; the second visit to a shared node is one line
    const dag = await app.press('D');
    expect(dag.replace(/\s+/g, ' ')).toContain(
      'a DAG (the prefix tree with agreeing suffixes merged) built from 5 passing run(s)',
    );
    expect(dag).toMatch(/↳ joins [a-z-]+ .+ ×\d+ \(shown above\)/);
    expect(await app.press('D')).not.toContain('↳ joins');
  });

  it("the list shows each run's tier and quality: L Lucky, S Solid, I Ideal, · scored without a tier", async () => {
    const {app} = explorer();
    await app.ready();
    await app.press('/');
    for (const c of 'demo-') await app.press(c);
    const frame = await app.press(KEYS.enter);
    expect(frame).toMatch(/lens$/m);
    expect(frame).toMatch(/demo__durations-1\s+demo-brute-force\s+yes\s+10\s+\d+\s+L \d+/);
    expect(frame).toMatch(/demo__durations-1\s+demo-methodical\s+yes\s+9\s+\d+\s+[IS] \d+/);
    expect(frame).toMatch(/demo__graphs-1\s+demo-hasty\s+no\s+3\s+\d+\s+· \d+/);
  });

  it('R ranks agents by pass rate and by quality with the shift', async () => {
    const {app} = explorer();
    await app.ready();
    const frame = await app.press('R');
    expect(frame).toContain('Lens rankings');
    expect(frame).toMatch(/demo-brute-force\s+3\s+100%\s+1\s+\d+\.\d\s+\d+\s+▼\d+\s+3\/3/);
    expect(frame).toMatch(/threshold \d+(\.\d)? \(calibrated on 17 passing and 7 failing/);
  });

  it("c then a stage key stores a person's correction; the timeline shows it; x takes it back", async () => {
    const {db, app} = explorer();
    await openRun(app, 'brute-force');
    let frame = await app.press('j');
    frame = await app.press('c');
    expect(frame).toContain('stage for step 2: e explore · i implement · v verify · o orchestrate');
    await app.press('v');
    frame = await app.until('step 2: ann says V');
    expect(frame).toMatch(/intent EVVIVVVIVO/);
    expect(frame).toMatch(/2 V\*~ bash/);
    const id = listTrajectories(db, {text: 'brute-force'})[0]!.id;
    expect(
      db.prepare('SELECT annotator, stage FROM stage_annotation WHERE trajectory = ? AND idx = 1').get(id),
    ).toEqual({annotator: 'ann', stage: 'V'});
    // the labeller's own label is kept
    expect(db.prepare('SELECT intent_stage FROM step WHERE trajectory = ? AND idx = 1').pluck().get(id)).toBe('I');
    await app.press('c');
    await app.press('x');
    frame = await app.until("removed ann's stage for step 2");
    expect(frame).toMatch(/intent EIVIVVVIVO/);
    expect(db.prepare('SELECT count(*) FROM stage_annotation').pluck().get()).toBe(0);
  });

  it('the list filters by tier and resolved status and sorts by the lens column', async () => {
    const {db, app} = explorer();
    await app.ready();
    await app.press('/');
    for (const c of 'tier:lucky') await app.press(c);
    let frame = await app.press(KEYS.enter);
    const lucky = listTrajectories(db, {tier: 'Lucky'});
    expect(lucky.length).toBeGreaterThan(0);
    expect(frame).toContain(`Trajectories (${lucky.length} matching "tier:lucky")`);
    const rows = frame.split('\n').filter(l => /^[›\s]\s+\d+ /.test(l));
    expect(rows).toHaveLength(lucky.length);
    for (const r of rows) expect(r).toMatch(/L \d+\s*$/);
    // sort by lens quality, descending: the first row has the highest quality
    for (let i = 0; i < 6; i++) frame = await app.press('s');
    expect(frame).toMatch(/lens↑/);
    frame = await app.press('S');
    const qualities = frame
      .split('\n')
      .map(l => /L (\d+)\s*$/.exec(l)?.[1])
      .filter(Boolean)
      .map(Number);
    expect(qualities).toEqual([...qualities].sort((a, b) => b - a));
    await app.press(KEYS.escape);
    await app.press('/');
    for (const c of 'resolved:no') await app.press(c);
    frame = await app.press(KEYS.enter);
    expect(frame).toContain(`Trajectories (${listTrajectories(db, {resolved: false}).length} matching "resolved:no")`);
  });
});
