/**
 * Tracing speed per interpreter: Python 3.11 (sys.settrace), 3.12 and 3.13 (sys.monitoring), on
 * the heavy real case (heavy.ts: a sympy test through simplify and integrate) and on three short
 * real tests (real sympy fixes from its history, laid out by heldout.ts), end to end against the
 * two warm plain pytest runs, and the tracer alone (events/s).
 *
 * An interpreter without pytest and sympy gets a venv in the bench's folder with copies of the
 * pure-Python packages of the default interpreter (sympy, mpmath, pytest and what it imports,
 * hypothesis), found through a .pth file: nothing is downloaded. The deltas must be the same on every interpreter.
 */
import {execFileSync, spawnSync} from 'node:child_process';
import {cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {TRACER_DIR} from '../../source/services/python.js';
import {cli} from './cli.js';
import {benchHeavy, median, type HeavyResult} from './heavy.js';

const DEFAULT_PY = process.env['DELTALENS_PYTHON'] ?? 'python3';
/** The pure-Python packages a sympy test needs under pytest (sympy's conftest wants hypothesis). */
const LENT = [
  'sympy',
  'mpmath',
  'pytest',
  '_pytest',
  'pluggy',
  'iniconfig',
  'packaging',
  'py.py',
  'pygments',
  'hypothesis',
  '_hypothesis_ftz_detector.py',
  '_hypothesis_globals.py',
  '_hypothesis_pytestplugin.py',
  'attr',
  'attrs',
  'sortedcontainers',
];
/** Three short real tests from the held-out sympy fixes (heldout.ts lays them out). */
const SHORT = ['30296', '29981', '29869'];

interface Interpreter {
  version: string;
  exe: string;
}

const run = (exe: string, args: string[], opts: {cwd?: string; env?: NodeJS.ProcessEnv} = {}) =>
  spawnSync(exe, args, {encoding: 'utf8', maxBuffer: 1 << 28, timeout: 900_000, ...opts});

/** 3.11, 3.12 and 3.13: the default interpreter if it is one of them, else pyenv's ($BENCH_PYTHONS: exes to use instead). */
function interpreters(): Interpreter[] {
  const given = process.env['BENCH_PYTHONS']?.split(',').filter(Boolean);
  const candidates = given ?? [DEFAULT_PY];
  if (!given) {
    const root = run('pyenv', ['root']).stdout?.trim();
    const versions = root && existsSync(join(root, 'versions')) ? readdirSync(join(root, 'versions')) : [];
    for (const minor of ['3.11', '3.12', '3.13']) {
      const v = versions.filter(x => x.startsWith(`${minor}.`)).sort();
      if (v.length) candidates.push(join(root!, 'versions', v.at(-1)!, 'bin', 'python'));
    }
  }
  const out: Interpreter[] = [];
  for (const exe of candidates) {
    // the interpreter's own path: the runs below get a PATH of their own
    const [v, path] = (
      run(exe, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2]); print(sys.executable)']).stdout ?? ''
    )
      .trim()
      .split('\n');
    if (v && path && ['3.11', '3.12', '3.13'].includes(v) && !out.some(i => i.version === v))
      out.push({version: v, exe: path});
  }
  return out.sort((a, b) => a.version.localeCompare(b.version, undefined, {numeric: true}));
}

/** An interpreter that has sympy and pytest as it is, or a venv of it with them lent; null: neither. */
function withSympy(i: Interpreter, out: string): string | null {
  const has = (exe: string) => run(exe, ['-c', 'import sympy, pytest, hypothesis']).status === 0;
  if (has(i.exe)) return i.exe;
  const venv = join(out, `venv-${i.version}`);
  const exe = join(venv, 'bin', 'python');
  if (existsSync(exe) && has(exe)) return exe;
  const site = run(DEFAULT_PY, [
    '-c',
    'import os, pytest; print(os.path.dirname(os.path.dirname(pytest.__file__)))',
  ]).stdout?.trim();
  if (!site) return null;
  rmSync(venv, {recursive: true, force: true});
  if (run(i.exe, ['-m', 'venv', '--without-pip', venv]).status !== 0) return null;
  const lent = join(venv, 'lent');
  mkdirSync(lent, {recursive: true});
  // copies, not links: the sandbox shows the interpreter's prefix (the venv), not the lender's
  for (const entry of readdirSync(site)) {
    const name = entry.replace(/-[^-]+\.dist-info$/, '');
    if (LENT.includes(entry) || (entry.endsWith('.dist-info') && LENT.includes(name)))
      cpSync(join(site, entry), join(lent, entry), {recursive: true, filter: src => !src.includes('__pycache__')});
  }
  const own = run(exe, ['-c', 'import site; print(site.getsitepackages()[0])']).stdout.trim();
  writeFileSync(join(own, 'lent.pth'), `${lent}\n`);
  return has(exe) ? exe : null;
}

function plain(exe: string, tree: string, test: string): number {
  const env = {PATH: '/usr/bin:/bin', HOME: '/tmp', PYTHONHASHSEED: '0', PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1'};
  run(exe, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', test], {cwd: tree, env}); // warm: bytecode written
  return median(
    [1, 2, 3].map(() => {
      const t = performance.now();
      run(exe, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', test], {cwd: tree, env});
      return (performance.now() - t) / 1000;
    }),
  );
}

/** The tracer alone on a tree: control flow of the whole test (no focus), events and seconds of tracing. */
function tracerAlone(exe: string, tree: string, test: string, out: string): {events: number; seconds: number} | null {
  const file = join(out, 'short-skeleton.jsonl');
  run(exe, ['-m', 'deltatrace', 'run', '--root', tree, '--record', 'skeleton', '--out', file, '--', test, '-q'], {
    cwd: tree,
    env: {PATH: '/usr/bin:/bin', HOME: '/tmp', PYTHONHASHSEED: '0', PYTHONPATH: TRACER_DIR},
  });
  if (!existsSync(file)) return null;
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  rmSync(file, {force: true});
  try {
    const end = JSON.parse(lines.at(-1)!) as {events: number; seconds: number};
    return {events: end.events, seconds: end.seconds};
  } catch {
    return null;
  }
}

interface ShortResult {
  pr: string;
  ratio: number;
  delta: string;
  rate: number | null;
}

async function short(exe: string, out: string, log: (line: string) => void): Promise<ShortResult[]> {
  const heldout = join(out, 'heldout');
  const picksFile = join(heldout, 'picks.json');
  if (!existsSync(picksFile)) {
    log('  short real tests: skipped (no held-out fixes laid out: BENCH_ONLY=heldout with DELTALENS_SYMPY_GIT first)');
    return [];
  }
  const picks = (JSON.parse(readFileSync(picksFile, 'utf8')) as {pr: string; test: string}[]).filter(p =>
    SHORT.includes(p.pr),
  );
  const results: ShortResult[] = [];
  for (const p of picks) {
    const buggy = join(heldout, p.pr, 'buggy');
    const fixed = join(heldout, p.pr, 'fixed');
    const warm = plain(exe, buggy, p.test) + plain(exe, fixed, p.test);
    const db = join(out, `interp-${p.pr}.db`);
    for (const s of ['', '-wal', '-shm']) rmSync(db + s, {force: true});
    const t = performance.now();
    const r = await cli([
      'trace',
      '--buggy-dir',
      buggy,
      '--patched-dir',
      fixed,
      '--test',
      p.test,
      '--python',
      exe,
      '--json',
      '--db',
      db,
    ]);
    const e2e = (performance.now() - t) / 1000;
    let delta = 'error';
    try {
      const d = JSON.parse(r.stdout) as {kind?: string; function?: string; line?: number; status?: string};
      delta = d.status === 'found' ? `${d.kind} in ${d.function} line ${d.line}` : String(d.status);
    } catch {
      delta = `error: ${r.stderr.trim().split('\n').at(-1)}`;
    }
    const alone = tracerAlone(exe, buggy, p.test, out);
    const rate = alone ? alone.events / alone.seconds : null;
    log(
      `  #${p.pr} ${p.test}: ${e2e.toFixed(1)} s end to end = ${(e2e / warm).toFixed(2)}× its two warm plain runs (${warm.toFixed(2)} s); tracer alone ${alone ? `${alone.events.toLocaleString('en')} events, ${Math.round(rate!).toLocaleString('en')}/s` : 'failed'}; ${delta}`,
    );
    results.push({pr: p.pr, ratio: e2e / warm, delta, rate});
  }
  return results;
}

export async function benchInterpreters(out: string, log: (line: string) => void): Promise<void> {
  log('\n## Tracing per interpreter: 3.11 (sys.settrace), 3.12 and 3.13 (sys.monitoring)');
  const found = interpreters();
  const rows: {version: string; heavy: HeavyResult | null; short: ShortResult[]}[] = [];
  for (const i of found) {
    const exe = withSympy(i, out);
    if (!exe) {
      log(`### Python ${i.version} (${i.exe}): skipped (no sympy and pytest, and none to lend)`);
      continue;
    }
    const version = execFileSync(exe, ['-c', 'import sys; print(sys.version.split()[0])'], {encoding: 'utf8'}).trim();
    log(`### Python ${version} (${exe})`);
    const heavy = await benchHeavy(out, line => log(`  ${line}`), exe);
    rows.push({version: i.version, heavy, short: await short(exe, out, log)});
  }
  if (!rows.length) return;
  log('');
  log(
    '| Python | heavy: end to end ÷ 2 warm plain runs | heavy: control flow events/s | heavy: valued events/s | bytes/event stored | short tests: median ÷ 2 plain runs |',
  );
  log('|---|---|---|---|---|---|');
  for (const r of rows) {
    const h = r.heavy;
    log(
      `| ${r.version} | ${h ? `${(h.e2e / h.plainWarm).toFixed(1)}× (${h.e2e.toFixed(1)} s)` : '—'} | ${h ? Math.round(h.skeletonRate).toLocaleString('en') : '—'} | ${h ? Math.round(h.fullRate).toLocaleString('en') : '—'} | ${h ? h.bytesPerEvent.toFixed(0) : '—'} | ${r.short.length ? `${median(r.short.map(s => s.ratio)).toFixed(2)}×` : '—'} |`,
    );
  }
  // the same deltas on every interpreter
  const heavyDeltas = new Set(rows.map(r => r.heavy?.delta.replace(/\s+\(.*$/, '')).filter(Boolean));
  const shortDeltas = SHORT.map(pr => new Set(rows.map(r => r.short.find(s => s.pr === pr)?.delta).filter(Boolean)));
  const same = heavyDeltas.size <= 1 && shortDeltas.every(s => s.size <= 1);
  log(
    same
      ? `the same delta on every interpreter (heavy: ${[...heavyDeltas][0] ?? '—'}; short: ${shortDeltas.map(s => [...s][0] ?? '—').join('; ')})`
      : `DELTAS DIFFER between interpreters: heavy ${[...heavyDeltas].join(' | ')}; short ${shortDeltas.map(s => [...s].join(' | ')).join('; ')}`,
  );
}
