/**
 * Function and class scopes of a checkout's files: `deltatrace scopes` reads them with Python's ast
 * (no project code runs; confined when bwrap is there, else run as it is).
 */
import {join} from 'node:path';
import type {Scope} from '../core/lens/scope.js';
import {forget, makeTempDir} from './leftovers.js';
import {pythonRunner, runPython} from './python.js';
import {readBack} from './tree-files.js';

const MAX_SCOPES_BYTES = 256 * 1024 * 1024;

/** Scopes of the files of a checkout, by path (files that are missing or do not parse are left out). */
export async function scopesIn(
  dir: string,
  files: string[],
  python: string,
): Promise<{scopes: Map<string, Scope[]>; problem: string | null}> {
  const scopes = new Map<string, Scope[]>();
  const py = files.filter(f => f.endsWith('.py') && !f.startsWith('/') && !f.includes('..'));
  if (!py.length) return {scopes, problem: null};
  // ast only, no project code runs: confined when bwrap is there, else run as it is
  const runner = await pythonRunner(python, 'prefer');
  const scratch = makeTempDir('scopes');
  const out = join(scratch, 'scopes.json');
  try {
    const r = await runPython(runner, ['-m', 'deltatrace', 'scopes', '--root', dir, '--out', out, ...py], {
      cwd: dir,
      timeoutMs: 60_000,
      writable: [scratch],
      readable: [dir],
    });
    if (r.exitCode !== 0)
      return {scopes, problem: `deltatrace scopes failed: ${r.stderr.trim().split('\n').at(-1) ?? r.exitCode}`};
    // a file the confined run wrote: read only if it is a regular file of a sane size
    const parsed = JSON.parse(
      readBack(out, MAX_SCOPES_BYTES, 'the scopes deltatrace wrote').toString('utf8'),
    ) as Record<string, {scopes?: Scope[]}>;
    for (const [path, v] of Object.entries(parsed)) if (v.scopes) scopes.set(path, v.scopes);
    return {scopes, problem: null};
  } finally {
    forget(scratch);
  }
}
