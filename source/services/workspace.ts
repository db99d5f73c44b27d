/**
 * Throw-away buggy and patched trees. The untrusted side always gets plain files in a folder of
 * its own: revisions are exported from git (a private index, `git checkout-index`), never
 * checked out as worktrees whose `.git` file points back into the user's repository; ready
 * directories are copied. A patch is applied to the copy inside the sandbox. The folders are
 * recorded (services/leftovers.ts) so that they are removed on every exit path.
 */
import {execa} from 'execa';
import {cpSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {basename, join, resolve} from 'node:path';
import {forget, forgetSoon, makeTempDir, release} from './leftovers.js';
import type {PythonRunner} from './python.js';
import {bwrapArgs, runEnv} from './sandbox.js';
import {TRACER_DIR} from './python.js';

export class WorkspaceError extends Error {}

export type WorkspaceSpec =
  | {kind: 'dirs'; buggyDir: string; patchedDir: string}
  | {kind: 'revs'; repo: string; buggy: string; patched: string}
  | {kind: 'patch'; repo: string; buggy?: string; patch: string; copy?: boolean}
  /** a SWE-bench instance: its base commit with its test patch is the buggy tree, that plus `patch`
   * (the gold fix, an agent's patch) the patched one — as the harness lays them out */
  | {
      kind: 'instance';
      repo: string;
      instance: string;
      base: string;
      testPatch: string;
      patch: string;
      patchLabel: string;
      imageTestbed?: string;
    };

export interface Workspace {
  buggy: string;
  patched: string;
  /** what made the trees, stored with the pair */
  describe: Record<string, unknown>;
  /** removes the throw-away trees */
  cleanup(): void;
  /** removes them in the background (other processes); resolves once they are gone */
  removeSoon(): Promise<void>;
  /** leaves them in place (--keep): no longer removed at exit */
  keep(): void;
  temporary: boolean;
}

// __pycache__ is copied (with every file's times, so the bytecode stays valid): a library
// imported from the tree is then not compiled again on every run
const SKIP = new Set(['.git', '.pytest_cache', '.mypy_cache', '.tox', '.venv', 'node_modules']);
const GIT_TIMEOUT_MS = 300_000;

/** git on the user's repository: reads only (rev-parse, read-tree into a private index, checkout-index into our folder). */
async function git(args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const r = await execa('git', args, {
    cwd,
    reject: false,
    timeout: GIT_TIMEOUT_MS,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/',
      GIT_TERMINAL_PROMPT: '0',
      LANG: 'C',
      ...env,
    },
    extendEnv: false,
  });
  if (r.failed)
    throw new WorkspaceError(
      `git ${args.join(' ')} failed in ${cwd}: ${(r.timedOut ? 'timed out' : String(r.stderr || r.shortMessage || '')).trim()}`,
    );
  return String(r.stdout).trim();
}

/** Whether `dir` is a bare repository (a mirror clone): revisions can be exported from it too. */
async function isBareRepo(dir: string): Promise<boolean> {
  const r = await execa('git', ['rev-parse', '--is-bare-repository'], {cwd: dir, reject: false, timeout: 30_000});
  return !r.failed && String(r.stdout).trim() === 'true';
}

/** null when `dir` is not in a git work tree, else its path below the top level ('' at the top). */
async function gitPrefix(dir: string): Promise<string | null> {
  const r = await execa('git', ['rev-parse', '--show-prefix'], {cwd: dir, reject: false, timeout: 30_000});
  return r.failed ? null : String(r.stdout).trim();
}

function needDir(path: string, flag: string): string {
  const full = resolve(path);
  if (!existsSync(full) || !statSync(full).isDirectory()) throw new WorkspaceError(`${flag} ${path}: not a directory`);
  return full;
}

/** pytest's assertion-rewritten bytecode (`test_x.cpython-311-pytest-8.3.2.pyc`) keeps the path it
 * was compiled at as the code's file name (CPython's own .pyc files are fixed up on import; these
 * are not): copied to another tree, the test would run as code of the old path, which the
 * tracer does not trace. */
const PYTEST_PYC = /-pytest-[^/]*\.pyc$/;

/** Files, folders and links only: a FIFO, socket or device a run left in a tree is not copied
 * (reading a FIFO would wait for ever). */
function copyable(src: string): boolean {
  if (SKIP.has(basename(src)) || PYTEST_PYC.test(src)) return false;
  const st = lstatSync(src);
  return st.isFile() || st.isDirectory() || st.isSymbolicLink();
}

export function copyTree(from: string, to: string): void {
  cpSync(from, to, {recursive: true, filter: copyable, verbatimSymlinks: true, preserveTimestamps: true});
}

/** copyTree in a process of its own (the same filter), for copies made side by side. */
const COPY_SCRIPT = `const {cpSync, lstatSync} = require('node:fs');
const {basename} = require('node:path');
const [from, to, skip, pyc] = JSON.parse(process.argv[1]);
const SKIP = new Set(skip);
const PYC = new RegExp(pyc);
try {
  cpSync(from, to, {recursive: true, verbatimSymlinks: true, preserveTimestamps: true, filter: src => {
    if (SKIP.has(basename(src)) || PYC.test(src)) return false;
    const st = lstatSync(src);
    return st.isFile() || st.isDirectory() || st.isSymbolicLink();
  }});
} catch (error) {
  process.stderr.write(String(error.message).split('\\n')[0] + '\\n');
  process.exit(1);
}`;

/** What copyTree leaves out, taken out of a tree copied whole: the skipped names at any depth,
 * pytest's rewritten bytecode, and anything not a file, folder or link. */
function prune(dir: string): void {
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const full = join(dir, entry.name);
    if (SKIP.has(entry.name)) rmSync(full, {recursive: true, force: true});
    else if (entry.isDirectory()) prune(full);
    else if (entry.isFile() ? PYTEST_PYC.test(full) : !entry.isSymbolicLink()) rmSync(full, {force: true});
  }
}

/**
 * A tree copied by cp (files, folders, links as links, modes and times; the top level's skipped
 * names left out), then pruned to what copyTree keeps: cp makes a third of the system calls
 * Node's copy does (two sympy trees side by side: 0.6 s against 1.8 s). False when cp is not
 * GNU's or cannot copy something (a socket): the caller copies the tree its own way instead.
 */
async function cpCopy(from: string, to: string): Promise<boolean> {
  let entries: string[];
  try {
    entries = readdirSync(from).filter(name => !SKIP.has(name));
  } catch {
    return false;
  }
  mkdirSync(to, {recursive: true});
  if (entries.length) {
    const args = [
      '-R',
      '--no-dereference',
      '--preserve=mode,timestamps,links',
      '--',
      ...entries.map(e => join(from, e)),
    ];
    const r = await execa('cp', [...args, to], {reject: false, timeout: GIT_TIMEOUT_MS});
    if (r.exitCode !== 0) {
      rmSync(to, {recursive: true, force: true});
      return false;
    }
  }
  prune(to);
  return true;
}

/**
 * Trees copied at once: each by cp (see cpCopy), or — where cp cannot — in a Node process of
 * its own with copyTree's filter. A copy is file-system calls made one after another, so two
 * trees copy in about the time of one on two cores.
 */
export async function copyTrees(pairs: [from: string, to: string][]): Promise<void> {
  await Promise.all(
    pairs.map(async ([from, to]) => {
      if (await cpCopy(from, to)) return;
      const r = await execa(
        process.execPath,
        ['-e', COPY_SCRIPT, JSON.stringify([from, to, [...SKIP], PYTEST_PYC.source])],
        {reject: false},
      );
      if (r.exitCode !== 0)
        throw new WorkspaceError(
          `copying ${from} to ${to} failed: ${r.stderr.trim().split('\n').filter(Boolean).at(-1) ?? `exit ${r.exitCode}`}`,
        );
    }),
  );
}

/** The files of `rev` as plain files under `dest`; the repository is only read. */
async function exportRevision(repo: string, rev: string, dest: string, scratch: string): Promise<void> {
  const index = join(scratch, `index-${basename(dest)}`);
  const commit = await git(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], repo).catch(() => {
    throw new WorkspaceError(`${rev}: not a revision of ${repo}`);
  });
  mkdirSync(dest, {recursive: true});
  await git(['read-tree', commit], repo, {GIT_INDEX_FILE: index});
  // --work-tree: a bare repository (a mirror clone) has none of its own
  await git([`--work-tree=${dest}`, 'checkout-index', '--all', '--force'], repo, {GIT_INDEX_FILE: index});
  rmSync(index, {force: true});
}

/**
 * `git apply` of an untrusted patch onto the patched copy. Outside any repository git apply
 * works like patch(1) relative to the tree; it refuses paths outside the tree and writes
 * through symlinks. With the sandbox it runs confined to the tree as well.
 */
async function applyPatch(
  patchFile: string,
  tree: string,
  runner: PythonRunner | null,
  describe: string,
): Promise<void> {
  const confined = runner?.confinement.confined ?? false;
  const run = (args: string[]) => {
    if (confined && runner) {
      const env = runEnv({
        python: runner.install,
        confined: true,
        tracerDir: TRACER_DIR,
        extra: {GIT_CEILING_DIRECTORIES: '/tmp'},
      });
      return execa(
        runner.confinement.bwrap!,
        [
          ...bwrapArgs({
            writable: [tree],
            readable: [patchFile],
            cwd: tree,
            python: runner.install,
            tracerDir: TRACER_DIR,
          }),
          '--',
          'git',
          ...args,
        ],
        {
          reject: false,
          timeout: GIT_TIMEOUT_MS,
          env,
          extendEnv: false,
        },
      );
    }
    return execa('git', args, {
      cwd: tree,
      reject: false,
      timeout: GIT_TIMEOUT_MS,
      env: {PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CEILING_DIRECTORIES: resolve(tree, '..')},
      extendEnv: false,
    });
  };
  const check = await run(['apply', '--check', '--whitespace=nowarn', patchFile]);
  if (check.failed)
    throw new WorkspaceError(`the patch ${patchFile} does not apply to ${describe}: ${String(check.stderr).trim()}`);
  const applied = await run(['apply', '--whitespace=nowarn', patchFile]);
  if (applied.failed) throw new WorkspaceError(`git apply ${patchFile} failed: ${String(applied.stderr).trim()}`);
}

export async function prepareWorkspace(spec: WorkspaceSpec, runner: PythonRunner | null = null): Promise<Workspace> {
  const tmp = makeTempDir('ws');
  const buggy = join(tmp, 'buggy');
  const patched = join(tmp, 'patched');
  const cleanup = () => forget(tmp);
  const removeSoon = () => forgetSoon(tmp);
  const keep = () => release(tmp);
  try {
    if (spec.kind === 'dirs') {
      // copies: the untrusted tests never write the user's own folders
      const buggyDir = needDir(spec.buggyDir, '--buggy-dir');
      const patchedDir = needDir(spec.patchedDir, '--patched-dir');
      await copyTrees([
        [buggyDir, buggy],
        [patchedDir, patched],
      ]);
      return {
        buggy,
        patched,
        describe: {kind: 'dirs', buggy: buggyDir, patched: patchedDir},
        cleanup,
        removeSoon,
        keep,
        temporary: true,
      };
    }
    if (spec.kind === 'instance' && spec.imageTestbed) {
      // the image's repository, at the base commit already (a SWE-bench image keeps it at /testbed)
      await copyTrees([[spec.imageTestbed, buggy]]);
    }
    const repo = spec.kind === 'instance' && spec.imageTestbed ? spec.imageTestbed : needDir(spec.repo, '--repo');
    if (spec.kind === 'instance') {
      if (!spec.imageTestbed) {
        if ((await gitPrefix(repo)) === null && !(await isBareRepo(repo)))
          throw new WorkspaceError(
            `--repo ${spec.repo} is not a git repository (a clone of the instance's repository is needed)`,
          );
        await exportRevision(repo, spec.base, buggy, tmp).catch(error => {
          if (error instanceof WorkspaceError && error.message.includes('not a revision')) {
            throw new WorkspaceError(
              `${spec.instance}'s base commit ${spec.base.slice(0, 12)} is not in ${spec.repo} (fetch it, or clone the instance's repository)`,
            );
          }
          throw error;
        });
      }
      const scratch = makeTempDir('patches');
      try {
        if (spec.testPatch.trim()) {
          const file = join(scratch, 'test.diff');
          writeFileSync(file, spec.testPatch.endsWith('\n') ? spec.testPatch : `${spec.testPatch}\n`);
          await applyPatch(file, buggy, runner, `${spec.instance}'s base commit (its test patch)`);
        }
        await copyTrees([[buggy, patched]]);
        if (spec.patch.trim()) {
          const file = join(scratch, 'fix.diff');
          writeFileSync(file, spec.patch.endsWith('\n') ? spec.patch : `${spec.patch}\n`);
          await applyPatch(
            file,
            patched,
            runner,
            `${spec.instance}'s base commit with its test patch (${spec.patchLabel})`,
          );
        }
      } finally {
        forget(scratch);
      }
      return {
        buggy,
        patched,
        describe: {
          kind: 'instance',
          repo,
          instance: spec.instance,
          base: spec.base,
          patch: spec.patchLabel,
          ...(spec.imageTestbed ? {image_testbed: spec.imageTestbed} : {}),
        },
        cleanup,
        removeSoon,
        keep,
        temporary: true,
      };
    }
    const prefix = spec.kind === 'patch' && spec.copy ? null : await gitPrefix(repo);
    const gitRepo = prefix !== null;
    // an export holds the whole repository; the project is `prefix` below its top
    const sub = (dir: string) => (prefix ? join(dir, prefix) : dir);
    if (spec.kind === 'revs') {
      if (!gitRepo)
        throw new WorkspaceError(
          `--repo ${spec.repo} is not a git repository (revisions need one; use --buggy-dir/--patched-dir)`,
        );
      await exportRevision(repo, spec.buggy, buggy, tmp);
      await exportRevision(repo, spec.patched, patched, tmp);
      return {
        buggy: sub(buggy),
        patched: sub(patched),
        describe: {kind: 'revs', repo, buggy: spec.buggy, patched: spec.patched},
        cleanup,
        removeSoon,
        keep,
        temporary: true,
      };
    }
    const patchFile = resolve(spec.patch);
    if (!existsSync(patchFile)) throw new WorkspaceError(`--patch ${spec.patch}: no such file`);
    let buggyRoot = buggy;
    if (gitRepo) {
      await exportRevision(repo, spec.buggy ?? 'HEAD', buggy, tmp);
      buggyRoot = sub(buggy);
    } else {
      if (spec.buggy) throw new WorkspaceError(`--buggy ${spec.buggy} needs --repo to be a git repository`);
    }
    // the buggy tree, and the patched one from the same files
    if (gitRepo) await copyTrees([[buggyRoot, patched]]);
    else
      await copyTrees([
        [repo, buggy],
        [repo, patched],
      ]);
    await applyPatch(patchFile, patched, runner, `${gitRepo ? (spec.buggy ?? 'HEAD') : 'the files'} of ${spec.repo}`);
    return {
      buggy: buggyRoot,
      patched,
      describe: {kind: 'patch', repo, buggy: gitRepo ? (spec.buggy ?? 'HEAD') : 'files', patch: patchFile},
      cleanup,
      removeSoon,
      keep,
      temporary: true,
    };
  } catch (error) {
    cleanup();
    throw error;
  }
}
