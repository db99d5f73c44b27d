/**
 * The demo as a newcomer meets it: the explorer on no demo database at all (its quick part built
 * first, the traced part in the background) to its first screen, the background build to its
 * end, and then later starts on the whole demo — each the real CLI in a pseudo-terminal (util-linux
 * `script`), on a demo file of the bench's own ($DELTALENS_DEMO_DB).
 */
import {spawn, spawnSync} from 'node:child_process';
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'deltalens.js');

/** Milliseconds from process start to the trajectory list on screen. */
function firstScreen(env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('script', ['-qfec', `${process.execPath} ${BIN} --demo`, '/dev/null'], {
      env: {...env, COLUMNS: '120', LINES: '40', NO_COLOR: '1'},
    });
    let seen = '';
    let at: number | null = null;
    child.stdout.on('data', chunk => {
      seen += chunk.toString();
      if (at === null && seen.includes('Trajectories (')) {
        at = performance.now() - t0;
        setTimeout(() => child.stdin.write('\x03'), 200);
      }
    });
    child.on('exit', () => (at === null ? reject(new Error(`no first screen: ${seen.slice(-300)}`)) : resolve(at)));
    setTimeout(() => child.kill(), 120_000);
  });
}

export async function benchDemoStart(log: (line: string) => void): Promise<void> {
  if (spawnSync('script', ['--version']).status !== 0) {
    log('demo first screen: skipped (no `script` command for a pseudo-terminal)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'deltalens-bench-demo-'));
  const env = {...process.env, DELTALENS_DEMO_DB: join(dir, 'demo.db')};
  const stamp = () =>
    existsSync(join(dir, 'demo.db.stamp'))
      ? (JSON.parse(readFileSync(join(dir, 'demo.db.stamp'), 'utf8')) as {stage: string}).stage
      : null;
  try {
    const first = await firstScreen(env);
    const t0 = performance.now();
    while (stamp() !== 'full') {
      if (performance.now() - t0 > 600_000) throw new Error('the background build did not end in 10 minutes');
      await new Promise(r => setTimeout(r, 250));
    }
    const background = (performance.now() - t0 + first) / 1000;
    const later: number[] = [];
    for (let i = 0; i < 5; i++) later.push(await firstScreen(env));
    later.sort((a, b) => a - b);
    log(
      `demo, no database yet: first screen ${first.toFixed(0)} ms (quick part built: runs, ExplainBench sample, hand-written questions); traced part in the background, whole after ~${background.toFixed(0)} s`,
    );
    log(
      `demo, whole: later starts to the first screen median ${later[2]!.toFixed(0)} ms (min ${later[0]!.toFixed(0)}, of 5)`,
    );
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
}
