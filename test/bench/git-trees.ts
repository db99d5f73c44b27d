import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync} from 'node:fs';

/** The files of a revision of a git repository (bare or not) in a folder (once; kept). */
export function exportTree(gitDir: string, rev: string, dest: string): void {
  if (existsSync(dest)) return;
  mkdirSync(dest, {recursive: true});
  const archive = spawnSync('git', ['--git-dir', gitDir, 'archive', rev], {maxBuffer: 1 << 30});
  spawnSync('tar', ['-x', '-C', dest], {input: archive.stdout});
}
