/**
 * Tracing fleets on this machine: `deltalens batch trace` over SWE-bench rows made from real sympy
 * fixes (each PR's merge: first parent the base, its test files the test patch, the rest the gold
 * patch), from a fresh store with one worker, then with two, then once more over the first store
 * (every pair already there: what resuming costs). Reported: pairs/hour of wall time, each job's
 * delta, and that both worker counts found the same deltas.
 */
import {mkdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {cli} from './cli.js';
import {sympyClone} from './git-trees.js';
import {record} from './instances.js';

const PY = process.env['DELTALENS_PYTHON'] ?? 'python3';

/** Short real fixes with the test SWE-bench would name (a bare sympy test name). */
const FIXES: [pr: string, test: string][] = [
  ['30296', 'test_evaluate_false'],
  ['29981', 'test_Function'],
  ['29869', 'test_elliptic_curve'],
  ['24562', 'test_issue_24543'],
];

interface Job {
  instance: string;
  status: string;
  seconds: number;
  error: string | null;
  delta: {status: string; function: string | null} | null;
}
interface Summary {
  jobs: Job[];
  traced: number;
  skipped: number;
  failed: number;
  incomplete: number;
  seconds: number;
  pairs_per_hour: number | null;
}

/** `batch trace --gold` over the bench's rows into `db`, as a user runs it: the summary, or why not. */
async function batch(dir: string, db: string, workers: number): Promise<Summary | string> {
  const r = await cli([
    'batch',
    'trace',
    '--instances',
    join(dir, 'rows.json'),
    '--gold',
    '--repo-dir',
    join(dir, 'repos'),
    '--workers',
    String(workers),
    '--python',
    PY,
    '--db',
    join(dir, db),
    '--json',
  ]);
  if (r.code === 2 || !r.stdout.trim()) return `exit ${r.code}: ${r.stderr.trim().split('\n').pop()}`;
  return JSON.parse(r.stdout) as Summary;
}

export async function benchFleet(out: string, log: (line: string) => void): Promise<void> {
  log('\n## Tracing fleets: batch trace over real sympy fixes');
  const sympy = sympyClone();
  if (!sympy) {
    log('skipped (set DELTALENS_SYMPY_GIT to a clone of sympy/sympy)');
    return;
  }
  const dir = join(out, 'fleet');
  rmSync(dir, {recursive: true, force: true});
  mkdirSync(join(dir, 'repos'), {recursive: true});
  symlinkSync(sympy.path, join(dir, 'repos', 'sympy'));
  const rows: Record<string, unknown>[] = [];
  for (const [pr, test] of FIXES) {
    const row = record(sympy.gitDir, pr, [test]);
    if (typeof row === 'string') log(`PR #${pr}: left out (${row})`);
    else rows.push(row);
  }
  writeFileSync(join(dir, 'rows.json'), JSON.stringify(rows));
  const runs: [string, Summary][] = [];
  for (const [label, db, workers] of [
    ['1 worker, fresh store', 'one.db', 1],
    ['2 workers, fresh store', 'two.db', 2],
    ['1 worker, every pair already stored', 'one.db', 1],
  ] as const) {
    const s = await batch(dir, db, workers);
    if (typeof s === 'string') {
      log(`${label}: failed (${s})`);
      return;
    }
    runs.push([label, s]);
    log(
      `${label}: ${s.traced} traced (${s.incomplete} incomplete), ${s.skipped} skipped, ${s.failed} failed in ${s.seconds.toFixed(1)} s${s.pairs_per_hour ? ` = ${s.pairs_per_hour} pairs/hour` : ''}`,
    );
    for (const j of s.jobs)
      if (j.status !== 'skipped')
        log(
          `  ${j.instance}: ${j.status === 'failed' ? `failed: ${j.error}` : `${j.delta?.status} ${j.delta?.function ?? ''} (${j.seconds.toFixed(1)} s)`}`,
        );
  }
  const deltas = (s: Summary) =>
    s.jobs
      .map(j => `${j.instance}=${j.delta?.status}:${j.delta?.function}`)
      .sort()
      .join(' ');
  const [one, two] = [runs[0]![1], runs[1]![1]];
  log(
    `the same deltas with 1 and 2 workers: ${deltas(one) === deltas(two) ? 'yes' : `NO (${deltas(one)} | ${deltas(two)})`}`,
  );
}
