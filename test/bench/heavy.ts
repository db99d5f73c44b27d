/**
 * The heavy real-library case: `deltalens trace` end to end (both sides, control-flow runs,
 * planned values, confirmation re-runs, storage) on a real sympy test whose fixed function,
 * Pow.__new__, runs under simplify and integrate — about 230,000 events per run. Against it:
 * the two plain pytest runs of the same test (warm: bytecode cached, as the traced trees are;
 * cold: compiled from source). Also the tracer alone (events/s while tracing), bytes stored per
 * event, and the temporary disk the run used at its peak against what it stored.
 */
import {spawn, spawnSync} from 'node:child_process';
import {cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import Database from 'better-sqlite3';
import {TRACER_DIR} from '../../source/services/python.js';
import {ROOT} from '../helpers/paths.js';

const DEFAULT_PY = process.env['DELTALENS_PYTHON'] ?? 'python3';
export const TEST = 'tests/test_heavy.py::test_pow_of_complex_infinity';
const FOCUS = 'sympy/core/power.py:Pow.__new__';
const FIX = '            if exp is S.ComplexInfinity:\n                return S.NaN\n';
const TEST_SOURCE = [
  'from sympy import S, Symbol, exp, integrate, nan, simplify, sin, cos, zoo',
  '',
  '',
  'def test_pow_of_complex_infinity():',
  '    x = Symbol("x")',
  '    assert simplify(sin(x) ** 2 + cos(x) ** 2 + exp(2 * x) / exp(x)) == 1 + exp(x)',
  '    assert integrate(x ** 2 * exp(x), x).diff(x).expand() == x ** 2 * exp(x)',
  '    assert S(2) ** zoo is nan',
  '',
].join('\n');

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? '/',
    PYTHONHASHSEED: '0',
    PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1',
    ...extra,
  };
}

function run(
  cmd: string[],
  cwd: string,
  e: Record<string, string>,
): {s: number; ok: boolean; stdout: string; stderr: string} {
  const t = performance.now();
  const r = spawnSync(cmd[0]!, cmd.slice(1), {cwd, env: e, encoding: 'utf8', maxBuffer: 1 << 28});
  return {s: (performance.now() - t) / 1000, ok: r.status === 0 || r.status === 1, stdout: r.stdout, stderr: r.stderr};
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The buggy and fixed trees: copies of the installed sympy, the fix taken out of the buggy one. */
export function trees(out: string, py = DEFAULT_PY): {buggy: string; fixed: string} | string {
  // the real folder: an interpreter may have sympy lent through a link (test/bench/interpreters.ts)
  const where = spawnSync(py, ['-c', 'import sympy, os; print(os.path.realpath(os.path.dirname(sympy.__file__)))'], {
    encoding: 'utf8',
  });
  if (where.status !== 0) return `sympy is not installed for ${py}`;
  const buggy = join(out, 'heavy-buggy');
  const fixed = join(out, 'heavy-fixed');
  for (const dir of [buggy, fixed]) {
    if (!existsSync(join(dir, 'sympy')))
      cpSync(where.stdout.trim(), join(dir, 'sympy'), {recursive: true, filter: src => !src.includes('__pycache__')});
    mkdirSync(join(dir, 'tests'), {recursive: true});
    writeFileSync(join(dir, 'tests', 'test_heavy.py'), TEST_SOURCE);
  }
  const power = join(buggy, 'sympy', 'core', 'power.py');
  const text = readFileSync(power, 'utf8');
  if (!readFileSync(join(fixed, 'sympy', 'core', 'power.py'), 'utf8').includes(FIX))
    return 'this sympy version has no `exp is S.ComplexInfinity` case in Pow.__new__ to take out';
  if (text.includes(FIX)) writeFileSync(power, text.replace(FIX, ''));
  return {buggy, fixed};
}

/** Bytes under a folder (du), or 0 when it is gone. */
async function du(path: string): Promise<number> {
  if (!existsSync(path)) return 0;
  return new Promise(resolve => {
    const p = spawn('du', ['-sb', path], {stdio: ['ignore', 'pipe', 'ignore']});
    let text = '';
    p.stdout.on('data', d => (text += String(d)));
    p.on('close', () => resolve(Number(text.split('\t')[0]) || 0));
  });
}

/** What the heavy case gave on one interpreter (null: it could not run). */
export interface HeavyResult {
  plainWarm: number;
  e2e: number;
  skeletonRate: number;
  fullRate: number;
  bytesPerEvent: number;
  delta: string;
}

export async function benchHeavy(
  out: string,
  log: (line: string) => void,
  py = DEFAULT_PY,
): Promise<HeavyResult | null> {
  const t = trees(out, py);
  if (typeof t === 'string') {
    log(`heavy tracing case: skipped (${t})`);
    return null;
  }
  const plainCmd = [py, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', TEST];
  // warm: one run per tree writes its bytecode, as a developer's checkout has it
  for (const dir of [t.buggy, t.fixed]) run(plainCmd, dir, env());
  const warm = [t.buggy, t.fixed].map(dir => median([1, 2, 3].map(() => run(plainCmd, dir, env()).s)));
  const empty = mkdtempSync(join(out, 'pycache-'));
  const cold = [t.buggy, t.fixed].map(
    dir => run(plainCmd, dir, env({PYTHONDONTWRITEBYTECODE: '1', PYTHONPYCACHEPREFIX: empty})).s,
  );
  rmSync(empty, {recursive: true, force: true});
  const plainWarm = warm[0]! + warm[1]!;
  const plainCold = cold[0]! + cold[1]!;

  // the tracer alone, control flow and then values everywhere, on the buggy tree
  const alone = (record: string) => {
    const file = join(out, `heavy-${record}.jsonl`);
    const r = run(
      [
        py,
        '-m',
        'deltatrace',
        'run',
        '--root',
        t.buggy,
        '--record',
        record,
        '--focus',
        FOCUS,
        '--out',
        file,
        '--',
        TEST,
        '-q',
        '-p',
        'no:cacheprovider',
      ],
      t.buggy,
      env({PYTHONPATH: TRACER_DIR}),
    );
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const end = JSON.parse(lines.at(-1)!) as {events: number; seconds: number};
    rmSync(file, {force: true});
    return {wall: r.s, events: end.events, seconds: end.seconds};
  };
  const skeleton = alone('skeleton');
  const full = alone('full');

  // end to end, in its own TMPDIR so its temporary disk can be watched
  const tmp = mkdtempSync(join(out, 'heavy-tmp-'));
  const db = join(out, 'heavy.db');
  for (const s of ['', '-wal', '-shm']) rmSync(db + s, {force: true});
  let peak = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const wal = existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0;
      peak = Math.max(peak, (await du(tmp)) + wal);
      await new Promise(r => setTimeout(r, 500));
    }
  })();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'deltalens.js'),
      'trace',
      '--buggy-dir',
      t.buggy,
      '--patched-dir',
      t.fixed,
      '--test',
      TEST,
      '--db',
      db,
    ],
    {
      cwd: ROOT,
      env: {...process.env, DELTALENS_PYTHON: py, TMPDIR: tmp},
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', d => (stdout += String(d)));
  child.stderr.on('data', d => (stderr += String(d)));
  const code = await new Promise<number | null>(resolve => child.on('close', resolve));
  const e2e = (performance.now() - started) / 1000;
  sampling = false;
  await sampler;
  rmSync(tmp, {recursive: true, force: true});
  if (code !== 0) {
    log(
      `heavy tracing case: deltalens trace failed (exit ${code}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`,
    );
    return null;
  }
  const store = new Database(db, {readonly: true});
  const events = store.prepare('SELECT sum(n_events) FROM trace').pluck().get() as number;
  const traces = store.prepare('SELECT count(*) FROM trace').pluck().get() as number;
  let parts = '';
  try {
    const rows = store
      .prepare(`SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 4`)
      .all() as {name: string; bytes: number}[];
    parts = ` (${rows.map(r => `${r.name} ${(r.bytes / 2 ** 20).toFixed(1)} MB`).join(', ')})`;
  } catch {
    // no dbstat in this SQLite build
  }
  store.close();
  const stored = statSync(db).size;
  const delta = stdout.split('\n').find(l => l.startsWith('delta:')) ?? '(no delta line)';
  const confirmation = /confirming|varies|re-running/.test(stderr)
    ? stderr.split('\n').filter(l => /varies|confirming/.test(l)).length
    : 0;
  const runsLine = (label: string, r: {wall: number; events: number; seconds: number}) =>
    `${r.events.toLocaleString('en')} events in ${r.seconds.toFixed(2)} s of tracing = ${Math.round(r.events / r.seconds).toLocaleString('en')} events/s (${r.wall.toFixed(2)} s wall) — ${label}`;
  log(`heavy tracing case: a sympy test through simplify and integrate, --focus ${FOCUS}, ${py}`);
  log(
    `  plain pytest, both sides: ${plainWarm.toFixed(2)} s warm (bytecode cached; median of 3 per side), ${plainCold.toFixed(2)} s cold`,
  );
  log(`  tracer alone: ${runsLine('control flow only', skeleton)}`);
  log(`  tracer alone: ${runsLine('values at every step', full)}`);
  log(
    `  deltalens trace end to end (both sides, ${traces} traces kept, ${confirmation} confirmation step(s)): ${e2e.toFixed(1)} s = ${(e2e / plainWarm).toFixed(1)}× the two warm plain runs, ${(e2e / plainCold).toFixed(1)}× the two cold ones`,
  );
  log(`  ${delta.trim()}`);
  log(
    `  stored: ${(stored / 2 ** 20).toFixed(1)} MB for ${events.toLocaleString('en')} events = ${(stored / events).toFixed(0)} bytes/event${parts}`,
  );
  log(
    `  temporary disk at its peak (the two copied trees, plans, the store's WAL): ${(peak / 2 ** 20).toFixed(0)} MB = ${(peak / stored).toFixed(2)}× the stored size; no trace file is written`,
  );
  return {
    plainWarm,
    e2e,
    skeletonRate: skeleton.events / skeleton.seconds,
    fullRate: full.events / full.seconds,
    bytesPerEvent: stored / events,
    delta: delta.trim(),
  };
}
