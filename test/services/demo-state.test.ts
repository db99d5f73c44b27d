/**
 * The demo's two parts as the explorer and the commands see them: the quick part built, the
 * traced part being built by a live process, stopped midway (its process gone, or failed), or
 * whole. Real quick builds into a test's own file ($DELTALENS_DEMO_DB).
 */
import {spawnSync} from 'node:child_process';
import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {beforeAll, describe, expect, it} from 'vitest';
import {tempDir} from '../helpers/files.js';

const dir = tempDir();
process.env.DELTALENS_DEMO_DB = join(dir, 'demo.db');
const demo = await import('../../source/services/demo.js');
const {selfIdentity} = await import('../../source/services/leftovers.js');

const stamp = () => JSON.parse(readFileSync(`${demo.DEMO_DB}.stamp`, 'utf8')) as {stage: string; build: string};
/** the pid of a process that has ended */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

beforeAll(async () => {
  await demo.buildDemoQuick();
}, 60_000);

describe('the demo in two parts', () => {
  it('after the quick part: "quick", nobody building the rest, not whole', () => {
    expect(stamp().stage).toBe('quick');
    expect(demo.demoState()).toEqual({kind: 'quick', build: stamp().build});
    expect(demo.demoIsCurrent()).toBe(false);
  });

  it('a live process building the rest: "finishing", with how far it is; gone or failed midway: "interrupted" (built anew)', () => {
    const build = stamp().build;
    const write = (f: object) =>
      writeFileSync(demo.FINISHING, JSON.stringify({build, done: 3, total: 24, message: 'tracing', ...f}));
    write(selfIdentity());
    expect(demo.demoState()).toMatchObject({kind: 'finishing', progress: {done: 3, total: 24, pid: process.pid}});
    expect(demo.demoBuildStatus(process.pid)).toMatchObject({state: 'running', text: 'demo build 3/24: tracing'});
    write({pid: deadPid(), start: null});
    expect(demo.demoState().kind).toBe('interrupted');
    expect(demo.demoBuildStatus(0)).toMatchObject({state: 'failed'});
    // its record stays while the file holds its half: the next start sees it and builds anew
    demo.sweepDemoLeftovers();
    expect(existsSync(demo.FINISHING)).toBe(true);
    write({...selfIdentity(), failed: 'disk full'});
    expect(demo.demoState().kind).toBe('interrupted');
    expect(demo.demoBuildStatus(process.pid).text).toContain('stopped: disk full');
    // a record of an earlier quick build is not this one's
    write({...selfIdentity(), build: 'another'});
    expect(demo.demoState().kind).toBe('quick');
  });

  it('finishDemo refuses while another process builds the rest, and when there is no quick part of these sources', async () => {
    writeFileSync(
      demo.FINISHING,
      JSON.stringify({...selfIdentity(), build: stamp().build, done: 0, total: 24, message: 'x'}),
    );
    expect(await demo.finishDemo()).toEqual({status: 'busy', pid: process.pid});
    writeFileSync(`${demo.DEMO_DB}.stamp`, JSON.stringify({...stamp(), fingerprint: '0'.repeat(64)}));
    expect(await demo.finishDemo()).toMatchObject({
      status: 'not-needed',
      why: 'the quick part of the demo is not built',
    });
  });
});
