import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {Db} from '../../source/store/db.js';
import {listTrajectories} from '../../source/store/trajectories.js';
import {storeData} from '../../source/ui/data.js';
import {trajectoryScreen} from '../../source/ui/screens/trajectory/keys.js';
import {freshDb, importInto} from '../helpers/db.js';
import {SAMPLES} from '../helpers/files.js';
import {startOpenAiServer} from '../helpers/openai-server.js';
import {renderApp} from '../helpers/ui.js';

const TEST = 'from durations import parse_duration\n\n\ndef test_compound():\n    assert parse_duration("1h30m") == 5400\n';
let db: Db;
let run: number;
let server: Awaited<ReturnType<typeof startOpenAiServer>>;
const saved = {model: process.env.DELTALENS_AUDIT_MODEL, key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL};
beforeAll(async () => {
  db = freshDb().db;
  importInto(db, [join(SAMPLES, 'demo-runs', 'demo-misfix')]);
  run = listTrajectories(db, {instance: 'demo__durations-1'})[0]!.id;
  let n = 0;
  server = await startOpenAiServer(() => (n++ === 0 ? {toolCalls: [{name: 'diff_execution', arguments: JSON.stringify({test_code: TEST})}]} : {answer: 'Revised: the test still fails after this patch.'}));
});
afterAll(async () => {
  await server?.close();
  for (const [k, v] of [['DELTALENS_AUDIT_MODEL', saved.model], ['OPENAI_API_KEY', saved.key], ['OPENAI_BASE_URL', saved.url]] as const) {
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
    const app = renderApp({data: storeData(db, 'test.db', {noSandbox: false}), initial: {stack: [trajectoryScreen(run)]}});
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
});
