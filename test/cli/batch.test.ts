/**
 * `deltalens batch trace`: the three demo projects as SWE-bench instances (each a git clone with
 * its record), traced by two workers in one process into a real SQLite file, with the real tracer
 * in the sandbox; resumed after a run that stopped; a job that cannot run is named and the rest go on.
 */
import {execFileSync, spawnSync} from 'node:child_process';
import {cpSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {ROOT, tempDir} from '../helpers/files.js';
import {hasBwrap} from '../helpers/hostile.js';

const BIN = join(ROOT, 'bin', 'deltalens.js');
const PROJECTS = ['durations', 'graphs', 'ledger'];

function run(args: string[], cwd: string) {
  if (!hasBwrap()) args = [...args, '--no-sandbox'];
  const r = spawnSync(process.execPath, [BIN, ...args], {cwd, encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}});
  return {code: r.status, stdout: r.stdout, stderr: r.stderr};
}

/** A demo project as a clone at DIR/owner__name (one commit) and its dataset row. */
function instance(name: string, repoDir: string) {
  const project = JSON.parse(readFileSync(join(PROJECTS_DIR, name, 'project.json'), 'utf8')) as {
    instance: string;
    repo: string;
    test: string;
    problem_statement: string;
  };
  const clone = join(repoDir, project.repo.replace('/', '__'));
  cpSync(join(PROJECTS_DIR, name, 'repo'), clone, {recursive: true});
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: clone,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t',
      },
    }).trim();
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'base');
  return {
    repo: project.repo,
    instance_id: project.instance,
    base_commit: git('rev-parse', 'HEAD'),
    patch: readFileSync(join(PROJECTS_DIR, name, 'patches', 'gold.diff'), 'utf8'),
    test_patch: '',
    problem_statement: project.problem_statement,
    FAIL_TO_PASS: JSON.stringify([project.test]),
    PASS_TO_PASS: '[]',
    version: '1.0',
    created_at: '2026-01-01T00:00:00Z',
  };
}

describe('deltalens batch trace', () => {
  it('traces every instance with two workers, resumes without tracing anything twice, and names a job that cannot run', () => {
    const cwd = tempDir();
    const repoDir = join(cwd, 'clones');
    const rows = PROJECTS.map(p => instance(p, repoDir));
    // one more instance whose clone is not there, and one whose test does not exist (incomplete)
    rows.push({...rows[0]!, instance_id: 'demo__missing-1', repo: 'demo/missing'});
    rows.push({...rows[0]!, instance_id: 'demo__durations-2', FAIL_TO_PASS: '["tests/test_parse.py::test_nope"]'});
    writeFileSync(join(cwd, 'instances.json'), JSON.stringify(rows));
    const args = ['batch', 'trace', '--instances', 'instances.json', '--gold', '--repo-dir', repoDir, '--json'];
    const first = run([...args, '--workers', '2'], cwd);
    expect(first.code, first.stderr).toBe(1); // the missing clone, the incomplete pair
    const out = JSON.parse(first.stdout);
    expect(out).toMatchObject({traced: 4, incomplete: 1, skipped: 0, failed: 1, workers: 2, interrupted: false});
    const byInstance = new Map(
      (out.jobs as {instance: string; status: string; delta: {function: string} | null; error: string | null}[]).map(
        j => [j.instance, j],
      ),
    );
    expect(byInstance.get('demo__durations-1')).toMatchObject({
      status: 'traced',
      delta: {status: 'found', function: 'parse_duration'},
    });
    expect(byInstance.get('demo__graphs-1')).toMatchObject({status: 'traced', delta: {status: 'found'}});
    expect(byInstance.get('demo__ledger-1')).toMatchObject({status: 'traced', delta: {status: 'found'}});
    expect(byInstance.get('demo__missing-1')).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^no clone of demo\/missing in .*clones \(looked for demo__missing, missing\)$/),
    });
    expect(out.pairs_per_hour).toBeGreaterThan(0);
    // progress on stderr: JSON lines only
    for (const line of first.stderr.split('\n').filter(Boolean)) expect(() => JSON.parse(line), line).not.toThrow();
    // the same command again: nothing traced twice
    const again = run(args, cwd);
    expect(JSON.parse(again.stdout)).toMatchObject({traced: 0, skipped: 4, failed: 1});
    expect(JSON.parse(run(['traces', '--json'], cwd).stdout).pairs).toHaveLength(4);
    // the incomplete one again, on asking
    const retried = run([...args, '--retry-incomplete'], cwd);
    expect(JSON.parse(retried.stdout)).toMatchObject({traced: 1, incomplete: 1, skipped: 3, failed: 1});
    // the table, without --json
    const plain = run(
      args.filter(a => a !== '--json'),
      cwd,
    );
    expect(plain.stdout).toMatch(/^instance\s+patch\s+test\s+status\s+delta/m);
    expect(plain.stdout).toMatch(/0 traced \(0 incomplete\), 4 already traced, 1 failed in \d+ s with 1 worker\(s\)/);
  }, 240_000);

  it('says what is missing in one line', () => {
    const cwd = tempDir();
    expect(run(['batch', 'trace', '--gold', '--repo-dir', '.'], cwd)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('batch trace needs --instances FILE'),
    });
    expect(run(['batch', 'trace', '--instances', 'x.json', '--repo-dir', '.'], cwd)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--gold or --predictions FILE'),
    });
    expect(run(['batch', 'nope'], cwd)).toMatchObject({code: 2});
  });
});
