/**
 * Throw-away buggy and patched trees: git worktrees of two revisions, a worktree (or copy)
 * plus `git apply` of a patch file, or two ready directories (left alone).
 */
import {execa, execaSync} from 'execa';
import {cpSync, existsSync, mkdtempSync, rmSync, statSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {basename, dirname, join, resolve} from 'node:path';
import {childEnv} from './python.js';

export class WorkspaceError extends Error {}

export type WorkspaceSpec =
  | {kind: 'dirs'; buggyDir: string; patchedDir: string}
  | {kind: 'revs'; repo: string; buggy: string; patched: string}
  | {kind: 'patch'; repo: string; buggy?: string; patch: string; copy?: boolean};

export interface Workspace {
  buggy: string;
  patched: string;
  /** what made the trees, stored with the pair */
  describe: Record<string, unknown>;
  /** removes the throw-away trees (a no-op for ready directories) */
  cleanup(): void;
  temporary: boolean;
}

const SKIP = new Set(['.git', '__pycache__', '.pytest_cache', '.mypy_cache', '.tox', '.venv', 'node_modules']);

async function git(args: string[], cwd: string): Promise<string> {
  const r = await execa('git', args, {cwd, reject: false, env: childEnv({GIT_TERMINAL_PROMPT: '0'}), extendEnv: false});
  if (r.failed) throw new WorkspaceError(`git ${args.join(' ')} failed in ${cwd}: ${(r.stderr || r.shortMessage || '').toString().trim()}`);
  return String(r.stdout).trim();
}

/** null when `dir` is not in a git work tree, else its path below the top level ('' at the top). */
async function gitPrefix(dir: string): Promise<string | null> {
  const r = await execa('git', ['rev-parse', '--show-prefix'], {cwd: dir, reject: false});
  return r.failed ? null : String(r.stdout).trim();
}

function needDir(path: string, flag: string): string {
  const full = resolve(path);
  if (!existsSync(full) || !statSync(full).isDirectory()) throw new WorkspaceError(`${flag} ${path}: not a directory`);
  return full;
}

function copyTree(from: string, to: string): void {
  cpSync(from, to, {recursive: true, filter: src => !SKIP.has(basename(src)), verbatimSymlinks: true});
}

export async function prepareWorkspace(spec: WorkspaceSpec): Promise<Workspace> {
  if (spec.kind === 'dirs') {
    const buggy = needDir(spec.buggyDir, '--buggy-dir');
    const patched = needDir(spec.patchedDir, '--patched-dir');
    return {buggy, patched, describe: {kind: 'dirs', buggy, patched}, cleanup: () => {}, temporary: false};
  }
  const repo = needDir(spec.repo, '--repo');
  const tmp = mkdtempSync(join(tmpdir(), 'deltalens-ws-'));
  const buggy = join(tmp, 'buggy');
  const patched = join(tmp, 'patched');
  const worktrees: string[] = [];
  const cleanup = removeTrees(repo, worktrees, tmp);
  try {
    const prefix = spec.kind === 'patch' && spec.copy ? null : await gitPrefix(repo);
    const gitRepo = prefix !== null;
    // a worktree holds the whole repository; the project is `prefix` below its top
    const sub = (dir: string) => (prefix ? join(dir, prefix) : dir);
    if (spec.kind === 'revs') {
      if (!gitRepo) throw new WorkspaceError(`--repo ${spec.repo} is not a git repository (revisions need one; use --buggy-dir/--patched-dir)`);
      for (const [dir, rev] of [
        [buggy, spec.buggy],
        [patched, spec.patched],
      ] as const) {
        await git(['worktree', 'add', '--detach', dir, rev], repo);
        worktrees.push(dir);
      }
      return {buggy: sub(buggy), patched: sub(patched), describe: {kind: 'revs', repo, buggy: spec.buggy, patched: spec.patched}, cleanup, temporary: true};
    }
    const patchFile = resolve(spec.patch);
    if (!existsSync(patchFile)) throw new WorkspaceError(`--patch ${spec.patch}: no such file`);
    let buggyRoot = buggy;
    if (gitRepo) {
      await git(['worktree', 'add', '--detach', buggy, spec.buggy ?? 'HEAD'], repo);
      worktrees.push(buggy);
      buggyRoot = sub(buggy);
    } else {
      if (spec.buggy) throw new WorkspaceError(`--buggy ${spec.buggy} needs --repo to be a git repository`);
      copyTree(repo, buggy);
    }
    copyTree(buggyRoot, patched);
    // outside any repository, git apply works like patch(1), relative to the project root
    const check = await execa('git', ['apply', '--check', '--whitespace=nowarn', patchFile], {cwd: patched, reject: false, env: {GIT_CEILING_DIRECTORIES: dirname(patched)}});
    if (check.failed) throw new WorkspaceError(`the patch ${spec.patch} does not apply to ${gitRepo ? (spec.buggy ?? 'HEAD') : 'the files'} of ${spec.repo}: ${String(check.stderr).trim()}`);
    await execa('git', ['apply', '--whitespace=nowarn', patchFile], {cwd: patched, env: {GIT_CEILING_DIRECTORIES: dirname(patched)}});
    return {buggy: buggyRoot, patched, describe: {kind: 'patch', repo, buggy: gitRepo ? (spec.buggy ?? 'HEAD') : 'files', patch: patchFile}, cleanup, temporary: true};
  } catch (error) {
    cleanup();
    throw error;
  }
}

/** Deletes the temporary directory, then lets git forget the worktrees that lived in it. */
function removeTrees(repo: string, worktrees: string[], tmp: string): () => void {
  return () => {
    rmSync(tmp, {recursive: true, force: true});
    if (worktrees.length) execaSync('git', ['worktree', 'prune'], {cwd: repo, reject: false});
  };
}
