/**
 * What the bubblewrap sandbox costs: starting an interpreter confined vs not, the tracer on a
 * real library test (a copy of the installed sympy) confined vs not, and a whole
 * `deltalens trace` of a demo project with the sandbox vs --no-sandbox. Medians of runs
 * taken in turn (A B A B …), so drift hits both.
 */
import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, rmSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {probePython, TRACER_DIR} from '../../source/services/python.js';
import {bwrapArgs, runEnv, sandboxStatus} from '../../source/services/sandbox.js';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {ROOT} from '../helpers/paths.js';

const PY = process.env['DELTALENS_PYTHON'] ?? 'python3';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function seconds(cmd: string[], cwd: string, env: Record<string, string>): number {
  const t = performance.now();
  const r = spawnSync(cmd[0]!, cmd.slice(1), {
    cwd,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) throw new Error(`${cmd.slice(0, 4).join(' ')} … failed: ${r.stderr.slice(-400)}`);
  return (performance.now() - t) / 1000;
}

/** Runs a and b in turn `n` times; medians and the median of the pairwise ratios a/b. */
function pair(n: number, a: () => number, b: () => number): {a: number; b: number; ratio: number} {
  const as: number[] = [];
  const bs: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = a();
    const y = b();
    as.push(x);
    bs.push(y);
    ratios.push(x / y);
  }
  return {a: median(as), b: median(bs), ratio: median(ratios)};
}

export async function benchSandbox(out: string, log: (line: string) => void): Promise<void> {
  const status = await sandboxStatus();
  if (!status.available) {
    log(`sandbox: skipped (${status.problem})`);
    return;
  }
  const install = await probePython(PY);
  const scratch = join(out, 'sandbox-tree');
  rmSync(scratch, {recursive: true, force: true});
  mkdirSync(scratch, {recursive: true});
  const confined = (cwd: string, writable: string[]) => [
    status.bwrap!,
    ...bwrapArgs({writable, cwd, python: install, tracerDir: TRACER_DIR}),
    '--',
    install.executable,
  ];
  const envIn = runEnv({python: install, confined: true, tracerDir: TRACER_DIR});
  const envOut = runEnv({python: install, confined: false, tracerDir: TRACER_DIR});

  const start = pair(
    9,
    () => seconds([...confined(scratch, [scratch]), '-c', 'pass'], scratch, envIn),
    () => seconds([install.executable, '-c', 'pass'], scratch, envOut),
  );
  log(
    `sandbox (bwrap ${status.version}): starting Python confined ${(start.a * 1000).toFixed(0)} ms vs ${(start.b * 1000).toFixed(0)} ms unconfined (median of 9 pairs; +${((start.a - start.b) * 1000).toFixed(0)} ms per run)`,
  );

  const sympy = join(out, 'sympy-root');
  if (existsSync(join(sympy, 'sympy'))) {
    const test = 'tests/test_sym.py::test_float_false_and_factor';
    const args = [
      '-m',
      'deltatrace',
      'run',
      '--root',
      sympy,
      '--out',
      '/dev/null',
      '--focus',
      'sympy/core/numbers.py:Float.__eq__',
      '--',
      test,
    ];
    const env = {PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1'};
    const traced = pair(
      3,
      () => seconds([...confined(sympy, [sympy]), ...args], sympy, {...envIn, ...env}),
      () => seconds([install.executable, ...args], sympy, {...envOut, ...env}),
    );
    log(
      `  tracer with --focus on a copy of sympy under pytest: ${traced.a.toFixed(2)} s confined vs ${traced.b.toFixed(2)} s unconfined = ${traced.ratio.toFixed(2)}× (median of 3 pairs)`,
    );
  } else {
    log('  (the sympy figure needs BENCH_ONLY=traces to have made the copy first)');
  }

  const bin = join(ROOT, 'bin', 'deltalens.js');
  const db = join(out, 'sandbox.db');
  const trace = (extra: string[]) => () => {
    for (const s of ['', '-wal', '-shm']) rmSync(db + s, {force: true});
    return seconds(
      [
        process.execPath,
        bin,
        'trace',
        '--repo',
        join(PROJECTS_DIR, 'ledger', 'repo'),
        '--patch',
        join(PROJECTS_DIR, 'ledger', 'patches', 'gold.diff'),
        '--test',
        'tests/test_account.py::test_small_deposits_keep_every_cent',
        '--no-plugins',
        '--python',
        install.executable,
        '--db',
        db,
        '--json',
        ...extra,
      ],
      ROOT,
      {...(process.env as Record<string, string>)},
    );
  };
  const whole = pair(5, trace([]), trace(['--no-sandbox']));
  log(
    `  deltalens trace of a demo project (two sides, re-runs, 4 traced runs + changes + patch): ${whole.a.toFixed(2)} s with the sandbox vs ${whole.b.toFixed(2)} s with --no-sandbox = ${whole.ratio.toFixed(2)}× (median of 5 pairs)`,
  );
}
