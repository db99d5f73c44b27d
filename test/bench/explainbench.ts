/**
 * The delta measured against the paper's own: ExplainBench's public package gives, for each of
 * its SWE-bench instances, the property-based test it ran (dataset/context/raw_pbts.json) and
 * the function its tracer found the delta in (dataset/context/local_intent.json: the function's
 * source before the patch, the line, before/after). For its sympy instances, the trees are laid
 * out from sympy's history — PR #N's merge commit (the instance id is sympy__sympy-N): its first
 * parent is the buggy tree, the merge the fixed one — and the PBT runs on both (untraced) to
 * check it fails before and passes after; then `deltalens trace` with that PBT as the test.
 * Reported: the share whose delta lands in the function ExplainBench names, and for each miss
 * where ours landed relative to the patch (a changed function, a reader of a changed name, the
 * call of an added function, elsewhere) — ExplainBench's tracer starts at the first
 * patch-modified function; ours walks from the test's start — and what the public code's own
 * behaviour (--option start-at-patched-function) gives there.
 *
 * Needs: DELTALENS_EXPLAINBENCH (a checkout of pan2013e/explainbench), DELTALENS_SYMPY_GIT (a
 * clone of sympy/sympy, bare or not), and a Python on which old sympy imports with hypothesis
 * (DELTALENS_PY_OLD; default: a venv made here from pyenv's 3.9 and Debian's pure-Python
 * hypothesis, pytest and mpmath, as SWE-bench runs sympy on 3.9). Results are kept per instance
 * in test/bench/out/explainbench/results.json, so a second run goes on where the first stopped
 * (BENCH_EB_REDO=1 starts again; BENCH_EB_ONLY=id,id limits it).
 */
import {execFileSync, spawn, spawnSync} from 'node:child_process';
import {cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {openDb} from '../../source/store/db.js';
import {StoredTrace} from '../../source/store/traces.js';
import {ROOT} from '../helpers/paths.js';
import {exportTree} from './git-trees.js';

interface Result {
  id: string;
  theirs: string | null;
  theirLine: string;
  ours: string | null;
  file: string | null;
  status: string;
  landing: string;
  match: boolean;
  seconds: number;
  /** with --option start-at-patched-function (misses only) */
  startAtPatched?: string | null;
  note?: string;
}

const DEBIAN_PACKAGES = [
  'python3-hypothesis',
  'python3-pytest',
  'python3-pluggy',
  'python3-iniconfig',
  'python3-packaging',
  'python3-attr',
  'python3-sortedcontainers',
  'python3-mpmath',
  'python3-exceptiongroup',
  'python3-tomli',
];

/** A Python 3.9 venv with Debian's pure-Python hypothesis, pytest and mpmath (pyenv's 3.9 and apt-get download). */
function oldPython(out: string, log: (line: string) => void): string | null {
  if (process.env['DELTALENS_PY_OLD']) return process.env['DELTALENS_PY_OLD'];
  const venv = join(out, 'venv-3.9');
  const py = join(venv, 'bin', 'python');
  if (existsSync(py)) return py;
  const pyenv = join(process.env['PYENV_ROOT'] ?? join(process.env['HOME'] ?? '/root', '.pyenv'), 'versions');
  const base = existsSync(pyenv) ? readdirSync(pyenv).find(v => v.startsWith('3.9.')) : undefined;
  if (!base) return null;
  const debs = join(out, 'debs');
  mkdirSync(debs, {recursive: true});
  log(`  making ${venv} from pyenv ${base} and Debian's ${DEBIAN_PACKAGES.join(', ')}`);
  const dl = spawnSync('apt-get', ['download', ...DEBIAN_PACKAGES], {cwd: debs, encoding: 'utf8'});
  if (dl.status !== 0) return null;
  const root = join(out, 'debroot');
  for (const deb of readdirSync(debs).filter(f => f.endsWith('.deb')))
    execFileSync('dpkg', ['-x', join(debs, deb), root]);
  execFileSync(join(pyenv, base, 'bin', 'python'), ['-m', 'venv', venv]);
  cpSync(join(root, 'usr', 'lib', 'python3', 'dist-packages'), join(venv, 'lib', 'python3.9', 'site-packages'), {
    recursive: true,
  });
  return py;
}

function git(dir: string, args: string[]): string {
  return execFileSync('git', ['--git-dir', dir, ...args], {encoding: 'utf8', maxBuffer: 1 << 28});
}

/** The PBT run as ExplainBench ran it: its exit code is the verdict. */
function verdict(py: string, tree: string): {code: number | null; s: number} {
  const t = performance.now();
  const r = spawnSync(py, ['pbt_explainbench.py'], {
    cwd: tree,
    timeout: 300_000,
    env: {PATH: '/usr/bin:/bin', HOME: '/tmp', PYTHONHASHSEED: '0'},
  });
  return {code: r.status, s: (performance.now() - t) / 1000};
}

async function trace(
  tree: {buggy: string; fixed: string},
  id: string,
  py: string,
  db: string,
  extra: string[] = [],
): Promise<Record<string, unknown> | {error: string}> {
  const args = [
    join(ROOT, 'bin', 'deltalens.js'),
    'trace',
    '--buggy-dir',
    tree.buggy,
    '--patched-dir',
    tree.fixed,
    '--test',
    'pbt_explainbench.py',
    '--python',
    py,
    '--json',
    '--db',
    db,
    '--instance',
    id,
    '--timeout',
    '900',
    ...extra,
  ];
  return new Promise(resolve => {
    const child = spawn(process.execPath, args, {cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe']});
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', d => (stdout += String(d)));
    child.stderr.on('data', d => (stderr += String(d)));
    child.on('close', () => {
      try {
        resolve(JSON.parse(stdout) as Record<string, unknown>);
      } catch {
        resolve({error: stderr.trim().split('\n').slice(-2).join(' | ') || 'no output'});
      }
    });
  });
}

const last = (qualname: string | null | undefined) => (qualname ? qualname.split('.').at(-1)! : null);

/** The function ExplainBench's delta is in: the first `def` of its source (decorators above it). */
const theirFunction = (code: string) => /^\s*(?:async\s+)?def\s+(\w+)/m.exec(code)?.[1] ?? null;

/**
 * The functions of the frames our delta sits in, from its own up to the test (on the buggy
 * side), from the instance's latest pair traced without options. ExplainBench's tracer compares
 * a patch-modified function by its result and never steps into it, so it names the caller the
 * result returns to; when that caller is among these, ours is where the value is computed.
 */
function deltaFrames(dbFile: string, instance: string): string[] {
  if (!existsSync(dbFile)) return [];
  const db = openDb(dbFile, {readonly: true});
  try {
    const row = db
      .prepare(
        `SELECT d.seq_b AS seq, d.kind AS kind, p.buggy_trace AS trace FROM delta d JOIN trace_pair p ON p.id = d.pair WHERE p.instance = ? AND d.options = '[]' AND d.status = 'found' ORDER BY d.id DESC LIMIT 1`,
      )
      .get(instance) as {seq: number | null; kind: string; trace: number} | undefined;
    if (!row || row.seq === null) return [];
    const t = new StoredTrace(db, row.trace);
    const at = t.itemAt(row.seq);
    const out: string[] = [];
    // a state delta at a call is the callee's arguments; an outcome delta's item is the next one
    // at the split (maybe a call), and the delta is in the frame that split
    for (
      let fid: number | null = (row.kind === 'state' ? (at?.callee ?? at?.fid) : at?.fid) ?? null;
      fid !== null && fid !== 0;
    ) {
      const f = t.frame(fid);
      if (!f) break;
      out.push(f.fn);
      fid = f.parent;
    }
    return out;
  } finally {
    db.close();
  }
}

export async function benchExplainBench(out: string, log: (line: string) => void): Promise<void> {
  const eb = process.env['DELTALENS_EXPLAINBENCH'];
  const sympy = process.env['DELTALENS_SYMPY_GIT'];
  log('\n## The delta against ExplainBench’s, on its sympy instances');
  if (!eb || !existsSync(join(eb, 'dataset', 'context', 'local_intent.json')) || !sympy) {
    log(
      'skipped: set DELTALENS_EXPLAINBENCH to a checkout of pan2013e/explainbench and DELTALENS_SYMPY_GIT to a clone of sympy/sympy',
    );
    return;
  }
  const dir = join(out, 'explainbench');
  mkdirSync(dir, {recursive: true});
  const py = oldPython(dir, log);
  if (!py) {
    log(
      'skipped: no Python 3.9 with hypothesis (set DELTALENS_PY_OLD, or install pyenv 3.9 and let apt-get download Debian packages)',
    );
    return;
  }
  const gitDir = existsSync(join(sympy, '.git')) ? join(sympy, '.git') : sympy;
  const local = JSON.parse(readFileSync(join(eb, 'dataset', 'context', 'local_intent.json'), 'utf8')) as Record<
    string,
    {function_code_before_patch: string; line: string; before_or_after: string}
  >;
  const pbts = new Map(
    (
      JSON.parse(readFileSync(join(eb, 'dataset', 'context', 'raw_pbts.json'), 'utf8')) as {
        instance_id: string;
        test: string;
      }[]
    ).map(p => [p.instance_id, p.test]),
  );
  const merges = new Map<string, [string, string]>();
  for (const line of git(gitDir, ['log', '--merges', '--format=%H %P|%s', '--all']).split('\n')) {
    const m = /^(\w+) (\w+) \w+.*\|Merge pull request #(\d+) /.exec(line);
    if (m && !merges.has(m[3]!)) merges.set(m[3]!, [m[1]!, m[2]!]);
  }
  const resultsFile = join(dir, 'results.json');
  const results: Record<string, Result | {id: string; skipped: string}> =
    existsSync(resultsFile) && !process.env['BENCH_EB_REDO'] ? JSON.parse(readFileSync(resultsFile, 'utf8')) : {};
  const only = process.env['BENCH_EB_ONLY']?.split(',');
  const ids = Object.keys(local)
    .filter(id => id.startsWith('sympy__sympy-') && pbts.has(id) && (!only || only.includes(id)))
    .sort();
  log(`${ids.length} sympy instances in the package with a PBT; ${py}`);
  for (const id of ids) {
    if (results[id]) continue;
    const pr = id.split('-').at(-1)!;
    const merge = merges.get(pr);
    if (!merge) {
      results[id] = {id, skipped: `no merge commit of PR #${pr} in the sympy history (squashed or merged by hand)`};
      continue;
    }
    const tree = {buggy: join(dir, 'inst', id, 'buggy'), fixed: join(dir, 'inst', id, 'fixed')};
    exportTree(gitDir, merge[1], tree.buggy);
    exportTree(gitDir, merge[0], tree.fixed);
    for (const t of [tree.buggy, tree.fixed]) writeFileSync(join(t, 'pbt_explainbench.py'), pbts.get(id)!);
    const before = verdict(py, tree.buggy);
    const after = verdict(py, tree.fixed);
    if (before.code === null || after.code === null) {
      results[id] = {
        id,
        skipped: `the PBT does not end within 300 s here (${before.code === null ? 'before' : 'after'} the fix)`,
      };
      writeFileSync(resultsFile, JSON.stringify(results, null, 1));
      log(`${id}: skipped (${(results[id] as {skipped: string}).skipped})`);
      continue;
    }
    if (before.code === 0 || after.code !== 0) {
      results[id] = {
        id,
        skipped: `the PBT does not fail before and pass after here (exit ${before.code} before, ${after.code} after)`,
      };
      writeFileSync(resultsFile, JSON.stringify(results, null, 1));
      log(`${id}: skipped (${(results[id] as {skipped: string}).skipped})`);
      continue;
    }
    const theirs = theirFunction(local[id]!.function_code_before_patch);
    const started = performance.now();
    const j = await trace(tree, id, py, join(dir, 'traces.db'));
    const seconds = (performance.now() - started) / 1000;
    const fn = 'error' in j ? null : (j['function'] as string | null);
    const r: Result = {
      id,
      theirs,
      theirLine: local[id]!.line.trim().slice(0, 120),
      ours: fn,
      file: 'error' in j ? null : (j['file'] as string | null),
      status: 'error' in j ? `error: ${j.error}` : String(j['status']),
      landing: 'error' in j ? '-' : String((j['landing'] as {kind: string} | undefined)?.kind ?? '-'),
      match: last(fn) === theirs,
      seconds: Math.round(seconds),
    };
    if (!r.match && !('error' in j)) {
      const alt = await trace(tree, id, py, join(dir, 'traces.db'), [
        '--option',
        'start-at-patched-function',
        '--no-rerun',
      ]);
      r.startAtPatched =
        'error' in alt ? `error: ${alt.error}` : ((alt['function'] as string | null) ?? String(alt['status']));
    }
    results[id] = r;
    writeFileSync(resultsFile, JSON.stringify(results, null, 1));
    log(
      `${id}: ${r.match ? 'same function' : 'different'} — ExplainBench ${theirs}, ours ${fn ?? r.status} (${r.landing}; ${r.seconds} s)${r.startAtPatched !== undefined ? `; start-at-patched-function: ${r.startAtPatched}` : ''}`,
    );
  }
  const done = Object.values(results).filter((r): r is Result => 'match' in r && ids.includes(r.id));
  for (const r of done) {
    r.theirs = theirFunction(local[r.id]!.function_code_before_patch);
    r.match = last(r.ours) === r.theirs;
  }
  const skipped = Object.values(results).filter(
    (r): r is {id: string; skipped: string} => 'skipped' in r && ids.includes(r.id),
  );
  const matched = done.filter(r => r.match).length;
  log(`\n| instance | ExplainBench | ours | where ours landed | start-at-patched-function | s |`);
  log(`|---|---|---|---|---|---|`);
  for (const r of done)
    log(
      `| ${r.id} | ${r.theirs} | ${r.ours ?? r.status}${r.match ? ' ✓' : ''} | ${r.landing} | ${r.startAtPatched ?? ''} | ${r.seconds} |`,
    );
  log(
    `\nsame function as ExplainBench: ${matched} of ${done.length} that run here (${done.length ? ((100 * matched) / done.length).toFixed(0) : 0} %); ${skipped.length} not run here:`,
  );
  const reasons = new Map<string, number>();
  const reasonOf = (s: string) => s.replace(/\(exit .*\)|\((before|after) the fix\)/, '').trim();
  for (const s of skipped) reasons.set(reasonOf(s.skipped), (reasons.get(reasonOf(s.skipped)) ?? 0) + 1);
  for (const [reason, n] of reasons) log(`  ${n} × ${reason}`);
  // the misses: is ExplainBench's function a caller our delta's value returns to?
  const callers = done.filter(
    r =>
      !r.match &&
      r.theirs &&
      deltaFrames(join(dir, 'traces.db'), r.id)
        .slice(1)
        .some(fn => last(fn) === r.theirs),
  );
  // ExplainBench's delta in a test function the PBT does not have: a test of the repository
  const repoTests = done.filter(
    r =>
      !r.match &&
      !callers.includes(r) &&
      r.theirs?.startsWith('test') &&
      !new RegExp(`^\\s*def ${r.theirs}\\(`, 'm').test(pbts.get(r.id) ?? ''),
  );
  log(
    `ExplainBench's delta in a test of the repository, not in the PBT (its tracer ran another test there): ${repoTests.length}` +
      (repoTests.length
        ? ` (${repoTests.map(r => `${r.id.replace('sympy__sympy-', '')} ${r.theirs}; ours ${r.landing}`).join(', ')})`
        : ''),
  );
  const byLanding = new Map<string, number>();
  for (const r of done.filter(x => !x.match && !callers.includes(x) && !repoTests.includes(x)))
    byLanding.set(r.landing, (byLanding.get(r.landing) ?? 0) + 1);
  log(
    `ExplainBench names a caller of our delta's frame (its tracer compares a patch-modified function by its result, never stepping in; ours is where the value is first computed): ${callers.length}` +
      (callers.length ? ` (${callers.map(r => r.id.replace('sympy__sympy-', '')).join(', ')})` : ''),
  );
  log(
    `same function, or ExplainBench's is the caller ours returns to: ${matched + callers.length} of ${done.length} (${done.length ? ((100 * (matched + callers.length)) / done.length).toFixed(0) : 0} %)`,
  );
  log(
    `the other differences, by where ours landed: ${[...byLanding].map(([k, n]) => `${n} × ${k}`).join(', ') || 'none'} (${done
      .filter(x => !x.match && !callers.includes(x) && !repoTests.includes(x))
      .map(r => r.id.replace('sympy__sympy-', ''))
      .join(', ')})`,
  );
  const comparable = done.length - repoTests.length;
  log(
    `of the ${comparable} where ExplainBench's delta comes from the PBT: same function, or its function is the caller ours returns to, ${matched + callers.length} (${comparable ? ((100 * (matched + callers.length)) / comparable).toFixed(0) : 0} %)`,
  );
  if (!process.env['BENCH_KEEP']) rmSync(join(dir, 'inst'), {recursive: true, force: true});
}
