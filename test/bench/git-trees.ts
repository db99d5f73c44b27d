import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync} from 'node:fs';
import {join} from 'node:path';

/** The sympy clone the real-fix benches read ($DELTALENS_SYMPY_GIT), and its git folder; null when unset. */
export function sympyClone(): {path: string; gitDir: string} | null {
  const path = process.env['DELTALENS_SYMPY_GIT'];
  if (!path) return null;
  return {path, gitDir: existsSync(join(path, '.git')) ? join(path, '.git') : path};
}

/** The files of a revision of a git repository (bare or not) in a folder (once; kept). */
export function exportTree(gitDir: string, rev: string, dest: string): void {
  if (existsSync(dest)) return;
  mkdirSync(dest, {recursive: true});
  const archive = spawnSync('git', ['--git-dir', gitDir, 'archive', rev], {maxBuffer: 1 << 30});
  spawnSync('tar', ['-x', '-C', dest], {input: archive.stdout});
}
