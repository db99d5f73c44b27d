import {spawn} from 'node:child_process';
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
