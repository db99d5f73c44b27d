import {spawn, spawnSync} from 'node:child_process';
import {join} from 'node:path';
import {ROOT} from '../helpers/paths.js';

/** `deltalens ARGS` from the checkout, as a user runs it; its exit code and whole output. */
export function cli(args: string[]): Promise<{code: number | null; stdout: string; stderr: string}> {
  return new Promise(resolve => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'deltalens.js'), ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', d => (stdout += String(d)));
    child.stderr.on('data', d => (stderr += String(d)));
    child.on('close', code => resolve({code, stdout, stderr}));
  });
}

/** Whether util-linux `script` is here to give the CLI a pseudo-terminal. */
export const hasPty = () => spawnSync('script', ['--version']).status === 0;

/**
 * Milliseconds from starting `deltalens ARGS` in a pseudo-terminal (120×40, no colour) to the
 * trajectory list on screen; the explorer is then quit (Ctrl+C). Rejects when no screen comes.
 */
export function firstScreenMs(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 120_000,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(
      'script',
      ['-qfec', [process.execPath, join(ROOT, 'bin', 'deltalens.js'), ...args].join(' '), '/dev/null'],
      {
        env: {...env, COLUMNS: '120', LINES: '40', NO_COLOR: '1'},
      },
    );
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
    setTimeout(() => child.kill(), timeoutMs);
  });
}
