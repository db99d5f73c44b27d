/**
 * The demo as a newcomer meets it: the explorer on no demo database at all (its quick part built
 * first, the traced part in the background) to its first screen, the background build to its
 * end, and then later starts on the whole demo — each the real CLI in a pseudo-terminal (util-linux
 * `script`), on a demo file of the bench's own ($DELTALENS_DEMO_DB).
 */
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {firstScreenMs, hasPty} from './cli.js';

export async function benchDemoStart(log: (line: string) => void): Promise<void> {
  if (!hasPty()) {
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
    const first = await firstScreenMs(['--demo'], env);
    const t0 = performance.now();
    while (stamp() !== 'full') {
      if (performance.now() - t0 > 600_000) throw new Error('the background build did not end in 10 minutes');
      await new Promise(r => setTimeout(r, 250));
    }
    const background = (performance.now() - t0 + first) / 1000;
    const later: number[] = [];
    for (let i = 0; i < 5; i++) later.push(await firstScreenMs(['--demo'], env));
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
