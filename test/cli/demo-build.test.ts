/**
 * build-demo stopped every way it can be: a SIGTERM or Ctrl+C removes its half-built files; a
 * SIGKILL leaves them to the next start, which removes them; a closed output pipe does not stop
 * it; it refuses the --db it does not take. Each run builds into a test's own file
 * ($DELTALENS_DEMO_DB), never the bundled demo.
 */
import {spawn} from 'node:child_process';
import {existsSync, readdirSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {BIN, runCli} from '../helpers/hostile.js';
import {tempDir} from '../helpers/files.js';

const building = (dir: string) => readdirSync(dir).filter(n => n.includes('.building-'));

function start(dir: string, stdio: 'pipe' | 'ignore' = 'pipe') {
  const child = spawn(process.execPath, [BIN, 'build-demo', '--force'], {env: {...process.env, DELTALENS_DEMO_DB: join(dir, 'demo.db'), NO_COLOR: '1'}, stdio: ['ignore', stdio, stdio]});
  const done = new Promise<{code: number | null; signal: NodeJS.Signals | null}>(r => child.on('close', (code, signal) => r({code, signal})));
  return {child, done};
}

async function until(what: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise(r => setTimeout(r, 50));
  }
}

describe('build-demo', () => {
  it('refuses --db (it always builds the demo database) with one line, exit 2', () => {
    const r = runCli(['build-demo', '--db', 'x.db'], {});
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('takes no --db');
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} during the build: exit ${signal === 'SIGINT' ? 130 : 143}, no half-built file left`, async () => {
      const dir = tempDir();
      const b = start(dir);
      await until(() => building(dir).length > 0);
      b.child.kill(signal);
      expect(await b.done).toEqual({code: signal === 'SIGINT' ? 130 : 143, signal: null});
      expect(readdirSync(dir)).toEqual([]);
    }, 90_000);
  }

  it('SIGKILL leaves the half-built files; the next start removes them', async () => {
    const dir = tempDir();
    const first = start(dir);
    await until(() => building(dir).some(n => n.endsWith('-wal')));
    const left = building(dir);
    first.child.kill('SIGKILL');
    await first.done;
    expect(building(dir)).toEqual(left);
    const second = start(dir);
    // the next build starts by removing what the killed one left
    await until(() => !left.some(n => existsSync(join(dir, n))) && building(dir).some(n => n.includes(`building-${second.child.pid}`)));
    second.child.kill('SIGTERM');
    await second.done;
    expect(readdirSync(dir)).toEqual([]);
  }, 120_000);

  it('a closed output pipe does not end it as if it had succeeded: it goes on building', async () => {
    const dir = tempDir();
    const b = start(dir);
    let ended = false;
    void b.done.then(() => (ended = true));
    await until(() => building(dir).length > 0);
    b.child.stdout!.destroy();
    b.child.stderr!.destroy();
    // progress keeps being written to the closed pipes; the build carries on
    await new Promise(r => setTimeout(r, 4000));
    expect(ended).toBe(false);
    expect(building(dir).length).toBeGreaterThan(0);
    b.child.kill('SIGTERM');
    await b.done;
    expect(readdirSync(dir)).toEqual([]);
  }, 90_000);
});
