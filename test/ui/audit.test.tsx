import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {Db} from '../../source/store/db.js';
import {auditMessages, getAudit} from '../../source/store/audits.js';
import {listTrajectories} from '../../source/store/trajectories.js';
import {storeData} from '../../source/ui/data/index.js';
import {trajectoryScreen} from '../../source/ui/screens/trajectory/keys.js';
import {freshDb, importInto} from '../helpers/db.js';
import {SAMPLES} from '../helpers/files.js';
import {startOpenAiServer} from '../helpers/openai-server.js';
import {KEYS, renderApp} from '../helpers/ui.js';

const TEST =
  'from durations import parse_duration\n\n\ndef test_compound():\n    assert parse_duration("1h30m") == 5400\n';
let db: Db;
let run: number;
let server: Awaited<ReturnType<typeof startOpenAiServer>>;
// a model whose every answer runs a test that does not end (the explorer's tool limit is 120 s)
let slow: Awaited<ReturnType<typeof startOpenAiServer>>;
const SLOW_TEST = 'import time\n\n\ndef test_waits():\n    time.sleep(100)\n';
const saved = {
  model: process.env.DELTALENS_AUDIT_MODEL,
  key: process.env.OPENAI_API_KEY,
  url: process.env.OPENAI_BASE_URL,
};
function freshRun(): {db: Db; run: number} {
  const {db} = freshDb();
  importInto(db, [join(SAMPLES, 'demo-runs', 'demo-misfix')]);
  return {db, run: listTrajectories(db, {instance: 'demo__durations-1'})[0]!.id};
}
/** The explorer on a store of its own (the run has no audit yet, so a starts one), an audit with
 * the slow model started and running its first tool. */
async function slowAuditRunning(model: string) {
  Object.assign(process.env, {DELTALENS_AUDIT_MODEL: model, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: slow.url});
  const {db, run} = freshRun();
  const data = storeData(db, 'test.db', {noSandbox: false});
  let quit = false;
  const app = renderApp({data, initial: {stack: [trajectoryScreen(run)]}, onQuit: () => (quit = true)});
  await app.ready();
  await app.press('a', {expectChange: false});
  await app.until('auditing: diff_execution', 60_000);
  return {db, data, app, quit: () => quit};
}
beforeAll(async () => {
  ({db, run} = freshRun());
  let n = 0;
  server = await startOpenAiServer(() =>
    n++ === 0
      ? {toolCalls: [{name: 'diff_execution', arguments: JSON.stringify({test_code: TEST})}]}
      : {answer: 'Revised: the test still fails after this patch.'},
  );
  slow = await startOpenAiServer(() => ({
    toolCalls: [{name: 'diff_execution', arguments: JSON.stringify({test_code: SLOW_TEST})}],
  }));
});
afterAll(async () => {
  await server?.close();
  await slow?.close();
  for (const [k, v] of [
    ['DELTALENS_AUDIT_MODEL', saved.model],
    ['OPENAI_API_KEY', saved.key],
    ['OPENAI_BASE_URL', saved.url],
  ] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe('audits in the explorer', () => {
  it('a on a run with no audit and no audit model says how to start one', async () => {
    delete process.env.DELTALENS_AUDIT_MODEL;
    const app = renderApp({data: storeData(db, 'test.db'), initial: {stack: [trajectoryScreen(run)]}});
    await app.ready();
    await app.press('a', {expectChange: false});
    await app.until('set $DELTALENS_AUDIT_MODEL');
    app.unmount();
  });

  it('a starts an audit with the model, shows its progress, then the audit: explanations, new text, the transcript with the test the model wrote', async () => {
    Object.assign(process.env, {DELTALENS_AUDIT_MODEL: 'auditor', OPENAI_API_KEY: 'k', OPENAI_BASE_URL: server.url});
    const app = renderApp({
      data: storeData(db, 'test.db', {noSandbox: false}),
      initial: {stack: [trajectoryScreen(run)]},
    });
    await app.ready();
    await app.press('a', {expectChange: false});
    let frame = await app.until('Audit #1', 60_000);
    expect(frame).toContain('Refined (new text marked)');
    expect(frame).toContain('Revised: the test still fails after this patch.');
    frame = await app.press('G');
    expect(frame).toContain('def test_compound():');
    expect(frame).toMatch(/← diff_execution: before failed, after failed/);
    // back on the run, a now opens the stored audit
    await app.press('\x1b');
    frame = await app.press('a');
    expect(frame).toContain('Audit #1');
    app.unmount();
  }, 90_000);

  it('Ctrl+C while an audit runs stops it — the running test too — and keeps its transcript, marked incomplete; the explorer stays open', async () => {
    const {db, app, quit} = await slowAuditRunning('slow-auditor');
    // a again opens the running audit (it does not start a second one), its transcript so far
    const running = await app.press('a');
    expect(running).toMatch(/Audit #\d+/);
    expect(running).toContain('running');
    expect(running).toContain('→ diff_execution()');
    await app.press(KEYS.ctrlC);
    // the test sleeping 100 s was stopped: the audit ends long before it would have
    // the audit screen open on it shows it stopped
    const shown = await app.until('incomplete — interrupted (Ctrl+C)', 30_000);
    expect(db.prepare("SELECT COUNT(*) AS n FROM audit WHERE model = 'slow-auditor'").get()).toEqual({n: 1});
    expect(quit()).toBe(false);
    const id = Number(/Audit #(\d+)/.exec(shown)![1]);
    expect(getAudit(db, id)).toMatchObject({
      status: 'incomplete',
      reason: expect.stringContaining('interrupted (Ctrl+C)'),
    });
    // the interrupted call has its answer in the transcript (a resumed audit sends every call back)
    const last = auditMessages(db, id).at(-1)!;
    expect(last).toMatchObject({role: 'tool', tool: 'diff_execution'});
    expect(last.content).toContain('interrupted (Ctrl+C) before this call finished');
    // with nothing running, Ctrl+C quits
    await app.press(KEYS.ctrlC, {expectChange: false});
    expect(quit()).toBe(true);
    app.unmount();
  }, 90_000);

  it('quitting (q) while an audit runs leaves it incomplete, not running, once the explorer closes', async () => {
    const {db, data, app, quit} = await slowAuditRunning('slow-auditor-2');
    // back to the list and q: the explorer quits with the audit still running
    await app.press(KEYS.escape);
    await app.press('q', {expectChange: false});
    // (the audit's own status may change the frame before the key is read)
    for (let i = 0; i < 100 && !quit(); i++) await new Promise(r => setTimeout(r, 20));
    expect(quit()).toBe(true);
    app.unmount();
    // what deltalens explore does before it closes the store
    data.effects.cancelJobs();
    await data.effects.whenIdle();
    const mine = db.prepare("SELECT id FROM audit WHERE model = 'slow-auditor-2'").all() as {id: number}[];
    expect(mine).toHaveLength(1);
    expect(getAudit(db, mine[0]!.id)).toMatchObject({status: 'incomplete'});
  }, 90_000);
});
