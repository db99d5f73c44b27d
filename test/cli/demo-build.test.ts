/**
 * build-demo stopped every way it can be: a SIGTERM or Ctrl+C removes its half-built files; a
 * SIGKILL leaves them to the next start, which removes them; a closed output pipe does not stop
 * it; it refuses the --db it does not take. Each run builds into a test's own file
 * ($DELTALENS_DEMO_DB), never the bundled demo.
 */
import {spawn} from 'node:child_process';
import {existsSync, readdirSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {BIN, runCli} from '../helpers/hostile.js';
import {tempDir} from '../helpers/files.js';
import {processAlive} from '../../source/services/leftovers.js';

const building = (dir: string) => readdirSync(dir).filter(n => n.includes('.building-'));

function start(dir: string, stdio: 'pipe' | 'ignore' = 'pipe') {
  const child = spawn(process.execPath, [BIN, 'build-demo', '--force'], {
    env: {...process.env, DELTALENS_DEMO_DB: join(dir, 'demo.db'), NO_COLOR: '1'},
    stdio: ['ignore', stdio, stdio],
  });
  const done = new Promise<{code: number | null; signal: NodeJS.Signals | null}>(r =>
    child.on('close', (code, signal) => r({code, signal})),
  );
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
    await until(
      () =>
        !left.some(n => existsSync(join(dir, n))) &&
        building(dir).some(n => n.includes(`building-${second.child.pid}`)),
    );
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

  it('the explorer opens on the quick part in seconds and builds the traced part in the background: progress in the status line, screens filled as parts are stored, the build going on after a quit', async () => {
    const dir = tempDir();
    const stamp = () =>
      existsSync(join(dir, 'demo.db.stamp'))
        ? (JSON.parse(readFileSync(join(dir, 'demo.db.stamp'), 'utf8')) as {stage: string}).stage
        : null;
    const first = explorer(dir);
    await until(() => first.screen().includes('Trajectories (50)'), 60_000);
    // the first screen came before the traced part: it is being built, and the status line says so
    expect(stamp()).toBe('quick');
    await until(() => /demo build \d+\/24: /.test(first.screen()));
    first.keys('t');
    // the ExplainBench traces come with the quick part; the demo projects' pairs are not there yet
    await until(() => first.screen().includes('Traced pairs ('));
    expect(Number(/Traced pairs \((\d+)\)/.exec(first.screen())![1])).toBeLessThan(13);
    await first.quit();
    const quit = await first.done;
    const pid = Number(/by process (\d+)/.exec(quit.stderr)?.[1]);
    expect(quit.stderr).toContain(
      "the demo's traced part (pairs, built questions, audits) is still being built in the background",
    );
    expect(processAlive(pid)).toBe(true);
    // a second start while it builds: the same build is watched, not another started
    const second = explorer(dir);
    await until(() => second.screen().includes('Trajectories (50)'), 30_000);
    second.keys('t');
    await until(() => second.screen().includes('Traced pairs ('));
    // the screen fills by itself as the pairs are stored, and the status line says when all is built
    await until(() => second.screen().includes('Traced pairs (13)'), 240_000);
    await until(() => stamp() === 'full', 240_000);
    await until(() => second.screen().includes('traced pairs, built questions and audits are ready'));
    await second.quit();
    const ended = await second.done;
    expect(ended.stderr).not.toContain('still being built');
    await until(() => !processAlive(pid));
    expect(readdirSync(dir).sort()).toEqual(['demo.db', 'demo.db.log', 'demo.db.stamp']);
    // what the background build made is what every command sees: the demo is whole
    const traces = runCli(['traces', '--json'], {DELTALENS_DEMO_DB: join(dir, 'demo.db')});
    expect(traces.code, traces.stderr).toBe(0);
    expect((JSON.parse(traces.stdout) as {pairs: unknown[]}).pairs.length).toBe(22);
  }, 420_000);
});

/** The explorer on a test's own demo file in a pseudo-terminal (util-linux script), 120×40. */
function explorer(dir: string) {
  const child = spawn('script', ['-qfec', `${process.execPath} ${BIN} --demo`, '/dev/null'], {
    env: {...process.env, DELTALENS_DEMO_DB: join(dir, 'demo.db'), COLUMNS: '120', LINES: '40', NO_COLOR: '1'},
  });
  let out = '';
  let err = '';
  child.stdout.on('data', chunk => (out += chunk.toString()));
  child.stderr.on('data', chunk => (err += chunk.toString()));
  const done = new Promise<{stderr: string}>(r =>
    child.on('close', () => r({stderr: out.slice(out.lastIndexOf('deltalens ·')) + err})),
  );
  return {
    // what the terminal shows now: the text after the last frame's start
    screen: () => out.slice(out.lastIndexOf('deltalens ·')),
    keys: (k: string) => child.stdin.write(k),
    // q goes back one screen and quits from the trajectory list; Ctrl+C quits at once
    quit: async () => {
      child.stdin.write('\x03');
      await new Promise(r => setTimeout(r, 200));
    },
    done,
  };
}
