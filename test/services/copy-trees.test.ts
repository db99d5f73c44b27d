/**
 * Trees copied side by side (by cp, pruned after; or each in a Node process of its own) keep what copyTree keeps: files,
 * folders, links as links, timestamps; not the user's .git, caches, pytest's rewritten bytecode,
 * or a FIFO a run left (reading one would wait for ever).
 */
import {spawnSync} from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {copyTrees, WorkspaceError} from '../../source/services/workspace.js';
import {tempDir} from '../helpers/files.js';

describe('copyTrees', () => {
  // by cp (then pruned), and by Node where there is no cp (an empty PATH)
  it.each([
    ['cp', undefined],
    ['node', ''],
  ])('copies two trees at once with the same filter (%s)', async (_how, path) => {
    const dir = tempDir();
    const src = join(dir, 'src');
    mkdirSync(join(src, 'pkg', '__pycache__'), {recursive: true});
    mkdirSync(join(src, '.git'), {recursive: true});
    writeFileSync(join(src, 'pkg', 'mod.py'), 'x = 1\n');
    writeFileSync(join(src, 'pkg', '__pycache__', 'mod.cpython-311.pyc'), 'bytecode');
    writeFileSync(join(src, 'pkg', '__pycache__', 'test_a.cpython-311-pytest-8.3.2.pyc'), 'rewritten');
    writeFileSync(join(src, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    symlinkSync('pkg/mod.py', join(src, 'link.py'));
    utimesSync(join(src, 'pkg', 'mod.py'), 1_000_000, 1_000_000);
    expect(spawnSync('mkfifo', [join(src, 'pipe')]).status).toBe(0);
    // a socket a run left, and a skipped name below the top
    const bind = `import socket; socket.socket(socket.AF_UNIX).bind(${JSON.stringify(join(src, 'pkg', 'sock'))})`;
    expect(spawnSync('python3', ['-c', bind]).status).toBe(0);
    mkdirSync(join(src, 'pkg', '.pytest_cache'), {recursive: true});
    writeFileSync(join(src, 'pkg', '.pytest_cache', 'README.md'), 'cache');
    const saved = process.env.PATH;
    if (path !== undefined) process.env.PATH = path;
    try {
      await copyTrees([
        [src, join(dir, 'a')],
        [src, join(dir, 'b')],
      ]);
    } finally {
      process.env.PATH = saved;
    }
    for (const to of ['a', 'b'].map(x => join(dir, x))) {
      expect(readFileSync(join(to, 'pkg', 'mod.py'), 'utf8')).toBe('x = 1\n');
      expect(statSync(join(to, 'pkg', 'mod.py')).mtimeMs).toBe(1_000_000_000);
      expect(existsSync(join(to, 'pkg', '__pycache__', 'mod.cpython-311.pyc'))).toBe(true);
      expect(existsSync(join(to, 'pkg', '__pycache__', 'test_a.cpython-311-pytest-8.3.2.pyc'))).toBe(false);
      expect(existsSync(join(to, '.git'))).toBe(false);
      expect(existsSync(join(to, 'pipe'))).toBe(false);
      expect(existsSync(join(to, 'pkg', 'sock'))).toBe(false);
      expect(existsSync(join(to, 'pkg', '.pytest_cache'))).toBe(false);
      expect(lstatSync(join(to, 'link.py')).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(to, 'link.py'))).toBe('pkg/mod.py');
    }
  });

  it('a copy that fails says which, in one line', async () => {
    const dir = tempDir();
    await expect(
      copyTrees([
        [join(dir, 'missing'), join(dir, 'a')],
        [join(dir, 'missing-too'), join(dir, 'b')],
      ]),
    ).rejects.toThrow(WorkspaceError);
    await expect(
      copyTrees([
        [join(dir, 'missing'), join(dir, 'a')],
        [join(dir, 'missing-too'), join(dir, 'b')],
      ]),
    ).rejects.toThrow(/^copying \S*missing(-too)? to \S+ failed: ENOENT: no such file or directory/);
  });
});
