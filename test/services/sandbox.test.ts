/**
 * Hostile patches on a real git repository, traced through the real CLI in the real bubblewrap
 * sandbox, and deltalens itself killed mid-trace. After each: the repository and the database
 * as they were (but for the trace rows of a run that completed), no process left, no folder left.
 */
import {existsSync, mkdirSync, readFileSync, rmSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {openDb} from '../../source/store/db.js';
import {importInto, snapshot} from '../helpers/db.js';
import {tempDir, SAMPLES} from '../helpers/files.js';
import {
  hasBwrap,
  hostileRepo,
  leftovers,
  noProcessesLeft,
  processesMentioning,
  PYTHON,
  runCli,
  startCli,
  treeHash,
} from '../helpers/hostile.js';

const BWRAP = hasBwrap();
if (!BWRAP) {
  console.warn(
    'sandbox tests skipped: bwrap (bubblewrap) is not installed here or cannot make namespaces (apt-get install -y bubblewrap; .ci/run installs it)',
  );
}

const marks: string[] = [];
afterAll(() => {
  // whatever a failed assertion or the unconfined control run left running
  for (const mark of marks)
    for (const line of processesMentioning(mark)) process.kill(Number(line.split(/\s+/)[0]), 'SIGKILL');
});

/** A store with something in it (a real trajectory), a private TMPDIR and HOME, a marker. */
function setting(name: string) {
  const dir = tempDir();
  const tmp = join(dir, 'tmp');
  const home = join(dir, 'home');
  mkdirSync(tmp);
  mkdirSync(home);
  const db = join(dir, 'store.db');
  const store = openDb(db);
  importInto(store, [join(SAMPLES, 'mini-swe-agent', 'django__django-11099.traj.json')]);
  const before = snapshot(store);
  store.close();
  const mark = `deltalens-hostile-${name}-${process.pid}-${Date.now()}`;
  marks.push(mark);
  return {dir, tmp, home, db, before, mark, env: {TMPDIR: tmp, HOME: home}};
}

const TRACE_TABLES = new Set([
  'trace',
  'frame',
  'trace_step',
  'trace_chunk',
  'trace_source',
  'source_text',
  'trace_pair',
  'delta',
  'program_version',
  'test',
  'instance',
]);

function rowsOutsideTraces(db: string): Record<string, unknown[]> {
  const store = openDb(db, {mode: 'read'});
  try {
    return Object.fromEntries(Object.entries(snapshot(store)).filter(([table]) => !TRACE_TABLES.has(table)));
  } finally {
    store.close();
  }
}

function traceArgs(repo: string, db: string, extra: string[] = []): string[] {
  return [
    'trace',
    '--repo',
    repo,
    '--buggy',
    'HEAD~1',
    '--patched',
    'HEAD',
    '--test',
    'tests/test_hostile.py::test_hostile',
    '--db',
    db,
    '--python',
    PYTHON,
    '--no-plugins',
    '--json',
    ...extra,
  ];
}

describe.skipIf(!BWRAP)('a hostile patch inside the sandbox', () => {
  it('cannot touch the repository, its .git, the database, the home folder or /tmp, and leaves no process or folder', async () => {
    const s = setting('confined');
    const repo = hostileRepo(s.dir, {db: s.db, home: s.home, mark: s.mark});
    const files = treeHash(repo);
    const r = runCli(traceArgs(repo, s.db), s.env);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      status: string;
      patched_outcome: unknown;
      sandbox: string;
      traces: {buggy: number; patched: number};
    };
    expect(out.sandbox).toMatch(/^bwrap /);
    // the hostile test ran to its end on the patched side (every attempt was made) and passed
    const store = openDb(s.db, {mode: 'read'});
    const patched = store.prepare("SELECT outcome, sandbox FROM trace WHERE side = 'patched' AND run = 1").get() as {
      outcome: string;
      sandbox: string;
    };
    store.close();
    expect(JSON.parse(patched.outcome)).toMatchObject({status: 'passed'});
    expect(patched.sandbox).toMatch(/^bwrap /);

    expect(treeHash(repo)).toEqual(files);
    expect(existsSync(join(repo, 'important.txt'))).toBe(true);
    expect(rowsOutsideTraces(s.db)).toEqual(
      Object.fromEntries(Object.entries(s.before).filter(([t]) => !TRACE_TABLES.has(t))),
    );
    expect(existsSync(`/tmp/escape-${s.mark}`)).toBe(false);
    expect(existsSync(join(s.home, `escape-${s.mark}`))).toBe(false);
    expect(await noProcessesLeft(s.mark)).toEqual([]);
    expect(leftovers(s.tmp)).toEqual([]);
  }, 120_000);

  it('the same patch with --no-sandbox does the damage (so the test above can fail), with a warning on every run', async () => {
    const s = setting('unconfined');
    const repo = hostileRepo(s.dir, {db: s.db, home: s.home, mark: s.mark});
    try {
      const r = runCli(traceArgs(repo, s.db, ['--no-sandbox']), s.env);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).sandbox).toBe('none (--no-sandbox)');
      expect(r.stderr.match(/WITHOUT the sandbox/g)!.length).toBeGreaterThanOrEqual(4);
      expect(existsSync(join(repo, 'important.txt'))).toBe(false);
      expect(readFileSync(join(repo, '.git', 'description'), 'utf8')).toBe('hostile');
      const store = openDb(s.db, {mode: 'read'});
      expect(new Set(store.prepare("SELECT name FROM agent WHERE model = 'hostile'").pluck().all())).toEqual(
        new Set(['cmdline', 'path']),
      );
      expect(store.prepare('SELECT DISTINCT sandbox FROM trace').pluck().all()).toEqual(['none (--no-sandbox)']);
      store.close();
      expect(existsSync(`/tmp/escape-${s.mark}`)).toBe(true);
      expect(existsSync(join(s.home, `escape-${s.mark}`))).toBe(true);
      // unconfined, the children outlive the test
      expect(processesMentioning(s.mark).length).toBeGreaterThan(0);
    } finally {
      rmSync(`/tmp/escape-${s.mark}`, {force: true});
    }
  }, 120_000);

  it('an infinite loop is stopped by the timeout: both traces are "timeout", the delta is only what was seen before the cut, nothing keeps running', async () => {
    const s = setting('loop');
    const body = `import time, subprocess, sys\nfrom lib import f\n\ndef test_hostile():\n    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", ${JSON.stringify(s.mark)}])\n    while True:\n        f()\n`;
    const repo = hostileRepo(s.dir, {db: s.db, home: s.home, mark: s.mark, body});
    const started = Date.now();
    const r = runCli(traceArgs(repo, s.db, ['--timeout', '8', '--no-rerun']), s.env);
    expect(Date.now() - started).toBeLessThan(90_000);
    const out = JSON.parse(r.stdout) as {
      status: string;
      reason: string;
      function: string;
      trace_status: {buggy: string; patched: string};
    };
    expect(out.trace_status).toEqual({buggy: 'timeout', patched: 'timeout'});
    // the patch changes f's result, which the loop reaches at once: found before the cut, or
    // "incomplete" (never ∅) if nothing differed yet
    if (out.status === 'found') {
      expect(r.code).toBe(0);
      expect(out.function).toBe('f');
    } else {
      expect(r.code).toBe(1);
      expect(out.status).toBe('incomplete');
      expect(out.reason).toMatch(/timeout|timed out|did not finish/);
    }
    expect(await noProcessesLeft(s.mark)).toEqual([]);
    expect(leftovers(s.tmp)).toEqual([]);
  }, 150_000);
});

describe.skipIf(!BWRAP)('deltalens killed mid-trace', () => {
  const body = (mark: string) =>
    `import time, subprocess, sys\nfrom lib import f\n\ndef test_hostile():\n    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", ${JSON.stringify(mark)}])\n    while True:\n        time.sleep(0.05)\n        f()\n`;

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGKILL'] as const) {
    it(`${signal}: the database and the repository are as they were, no process and no folder is left${signal === 'SIGKILL' ? ' (once the next deltalens starts)' : ''}`, async () => {
      const s = setting(signal);
      const repo = hostileRepo(s.dir, {db: s.db, home: s.home, mark: s.mark, body: body(s.mark)});
      const files = treeHash(repo);
      const cli = startCli(traceArgs(repo, s.db), s.env);
      // mid-trace: the test is running (its child is up) and trace rows are being written
      const deadline = Date.now() + 60_000;
      const writing = () => {
        const store = openDb(s.db, {mode: 'read'});
        try {
          return (store.prepare("SELECT count(*) FROM trace WHERE status = 'ingesting'").pluck().get() as number) > 0;
        } finally {
          store.close();
        }
      };
      while (Date.now() < deadline && !(processesMentioning(s.mark).length && writing()))
        await new Promise(resolve => setTimeout(resolve, 100));
      expect(processesMentioning(s.mark).length, cli.stderr).toBeGreaterThan(0);
      expect(leftovers(s.tmp).some(name => name.startsWith('deltalens-ws-'))).toBe(true);
      cli.child.kill(signal);
      const end = await cli.done;
      if (signal === 'SIGKILL') {
        expect(end.signal).toBe('SIGKILL');
        // the sandbox died with deltalens; the folders and rows wait for the next start
        expect(await noProcessesLeft(s.mark)).toEqual([]);
        const next = runCli(['traces', '--db', s.db], s.env);
        expect(next.code).toBe(0);
        expect(next.stderr).toMatch(
          /removed what a killed deltalens run left behind: 2 temporary folder\(s\), 2 unfinished trace\(s\)/,
        );
      } else {
        expect(end.code).toBe(signal === 'SIGINT' ? 130 : 143);
        expect(cli.stderr).toContain('nothing of this run was kept');
      }
      expect(await noProcessesLeft(s.mark)).toEqual([]);
      expect(await noProcessesLeft(s.tmp)).toEqual([]);
      expect(leftovers(s.tmp)).toEqual([]);
      const store = openDb(s.db, {mode: 'read'});
      expect(snapshot(store)).toEqual(s.before);
      store.close();
      expect(treeHash(repo)).toEqual(files);
    }, 120_000);
  }
});

describe('without bwrap', () => {
  it('untrusted runs are refused with the install command; nothing is written', () => {
    const s = setting('missing');
    const repo = hostileRepo(s.dir, {db: s.db, home: s.home, mark: s.mark});
    const r = runCli(traceArgs(repo, s.db), {...s.env, DELTALENS_BWRAP: join(s.dir, 'no-bwrap-here')});
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/runs only inside the bubblewrap sandbox.*apt-get install -y bubblewrap.*--no-sandbox/);
    const store = openDb(s.db, {mode: 'read'});
    expect(snapshot(store)).toEqual(s.before);
    store.close();
    expect(leftovers(s.tmp)).toEqual([]);
  }, 60_000);
});
