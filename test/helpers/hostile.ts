/**
 * A real git repository with a hostile test in it, and what to look at afterwards: the
 * repository's files, the database's rows, processes that mention a marker, leftover folders.
 */
import {execFileSync, spawn, spawnSync, type ChildProcess} from 'node:child_process';
import {createHash} from 'node:crypto';
import {cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs';
import {join, relative} from 'node:path';
import {ROOT} from './paths.js';

export const BIN = join(ROOT, 'bin', 'deltalens.js');

/** The real interpreter (not a pyenv shim, which needs the real HOME). */
export const PYTHON = execFileSync(
  process.env.DELTALENS_PYTHON ?? 'python3',
  ['-c', 'import sys; print(sys.executable)'],
  {encoding: 'utf8'},
).trim();

export function hasBwrap(): boolean {
  return (
    spawnSync(process.env.DELTALENS_BWRAP ?? 'bwrap', [
      '--unshare-all',
      '--die-with-parent',
      '--ro-bind',
      '/usr',
      '/usr',
      '--symlink',
      'usr/lib',
      '/lib',
      '--symlink',
      'usr/lib64',
      '/lib64',
      '--symlink',
      'usr/bin',
      '/bin',
      '--',
      '/usr/bin/true',
    ]).status === 0
  );
}

export function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], {cwd: repo, encoding: 'utf8'});
}

/** A copy of `tree` at `dest` as a git repository of one commit; its commit id. */
export function committedCopy(tree: string, dest: string): string {
  cpSync(tree, dest, {recursive: true});
  git(dest, 'init', '-q');
  git(dest, 'add', '-A');
  git(dest, 'commit', '-qm', 'base');
  return git(dest, 'rev-parse', 'HEAD').trim();
}

/**
 * A repository whose committed test tries everything a hostile patch's test could: delete the
 * user's file through a worktree's .git pointer and by absolute path, write the repository's
 * .git, find deltalens' database on the parent's command line and write it, write /tmp and the
 * home folder, and leave children running. `lib.py` differs between HEAD~1 and HEAD.
 */
export function hostileRepo(dir: string, o: {db: string; home: string; mark: string; body?: string}): string {
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'tests'), {recursive: true});
  writeFileSync(join(repo, 'important.txt'), "the user's own file\n");
  writeFileSync(join(repo, 'lib.py'), 'def f():\n    return 1\n');
  const body =
    o.body ??
    `
import glob, os, sqlite3, subprocess, sys, time
from lib import f

REPO = ${JSON.stringify(repo)}
DB = ${JSON.stringify(o.db)}
HOME = ${JSON.stringify(o.home)}
MARK = ${JSON.stringify(o.mark)}


def attempt(name, fn):
    try:
        fn()
        print("ESCAPED", name)
    except Exception as e:
        print("blocked", name, type(e).__name__)


def insert(path, who):
    c = sqlite3.connect("file:" + path + "?mode=rw", uri=True)
    c.execute("INSERT INTO agent (name, model) VALUES (?, 'hostile')", (who,))
    c.commit()


def test_hostile():
    d = os.getcwd()
    while d != "/":
        pointer = os.path.join(d, ".git")
        if os.path.isfile(pointer):
            gitdir = open(pointer).read().split(":", 1)[1].strip()
            repo = os.path.dirname(os.path.dirname(os.path.dirname(gitdir)))
            attempt("git-pointer", lambda: os.remove(os.path.join(repo, "important.txt")))
        d = os.path.dirname(d)
    attempt("repo-by-path", lambda: os.remove(os.path.join(REPO, "important.txt")))
    attempt("repo-git", lambda: open(os.path.join(REPO, ".git", "description"), "w").write("hostile"))
    for cmdline in glob.glob("/proc/*/cmdline"):
        try:
            args = open(cmdline, "rb").read().split(b"\\0")
        except OSError:
            continue
        if b"--db" in args:
            attempt("db-from-cmdline", lambda: insert(args[args.index(b"--db") + 1].decode(), "cmdline"))
    attempt("db-by-path", lambda: insert(DB, "path"))
    attempt("tmp", lambda: open("/tmp/escape-" + MARK, "w").write("x"))
    attempt("home", lambda: open(os.path.join(HOME, "escape-" + MARK), "w").write("x"))
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", MARK], start_new_session=True)
    if os.fork() == 0:
        os.setsid()
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)", MARK])
    assert f() == 2
`;
  writeFileSync(join(repo, 'tests', 'test_hostile.py'), body);
  git(repo, 'init', '-q');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'buggy');
  writeFileSync(join(repo, 'lib.py'), 'def f():\n    return 2\n');
  git(repo, 'commit', '-qam', 'fixed');
  return repo;
}

/** Every file of a folder (.git included) with its content hash: "unchanged" means equal maps. */
export function treeHash(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else out[relative(dir, full)] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

/** Processes whose command line mentions `text` (the test's marker or temp folder). */
export function processesMentioning(text: string): string[] {
  const out = spawnSync('ps', ['-eo', 'pid=,stat=,args='], {encoding: 'utf8'}).stdout;
  return out
    .split('\n')
    .filter(line => line.includes(text) && !/^\s*\d+\s+Z/.test(line) && !line.includes('ps -eo'))
    .map(line => line.trim());
}

/** Waits until no process mentions `text` (they die asynchronously after a kill), up to `ms`. */
export async function noProcessesLeft(text: string, ms = 10_000): Promise<string[]> {
  const deadline = Date.now() + ms;
  let left = processesMentioning(text);
  while (left.length && Date.now() < deadline) {
    await new Promise(resolve => setTimeout(resolve, 100));
    left = processesMentioning(text);
  }
  return left;
}

/** deltalens' own folders in a TMPDIR (the records folder of live runs included). */
export function leftovers(tmp: string): string[] {
  return existsSync(tmp)
    ? readdirSync(tmp).filter(name => name.startsWith('deltalens-') || name.startsWith('deltatrace-'))
    : [];
}

export interface Cli {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  done: Promise<{code: number | null; signal: NodeJS.Signals | null}>;
}

/** Starts deltalens in the background with its own TMPDIR and HOME. */
export function startCli(args: string[], env: Record<string, string>): Cli {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: {...process.env, NO_COLOR: '1', ...env},
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const cli: Cli = {child, stdout: '', stderr: '', done: null as never};
  child.stdout!.on('data', d => (cli.stdout += d));
  child.stderr!.on('data', d => (cli.stderr += d));
  cli.done = new Promise(resolve => child.on('close', (code, signal) => resolve({code, signal})));
  return cli;
}

export function runCli(
  args: string[],
  env: Record<string, string>,
): {code: number | null; stdout: string; stderr: string} {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: {...process.env, NO_COLOR: '1', ...env},
    encoding: 'utf8',
  });
  return {code: r.status, stdout: r.stdout, stderr: r.stderr};
}
