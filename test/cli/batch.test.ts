/**
 * `deltalens batch trace`: the three demo projects as SWE-bench instances (each a git clone with
 * its record), traced by two workers in one process into a real SQLite file, with the real tracer
 * in the sandbox; resumed after a run that stopped; a job that cannot run is named and the rest go on.
 */
import {spawnSync} from 'node:child_process';
import {cpSync, readdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {TRACER_DIR} from '../../source/services/python.js';
import {ROOT, tempDir} from '../helpers/files.js';
import {committedCopy, hasBwrap} from '../helpers/hostile.js';

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
  const base = committedCopy(join(PROJECTS_DIR, name, 'repo'), join(repoDir, project.repo.replace('/', '__')));
  return {
    repo: project.repo,
    instance_id: project.instance,
    base_commit: base,
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
    const second = JSON.parse(again.stdout);
    expect(second).toMatchObject({traced: 0, skipped: 4, failed: 1});
    // a skipped job says the delta stored for it, so the table of a resumed batch is whole
    for (const j of second.jobs as {instance: string; status: string; delta: unknown}[])
      if (j.status === 'skipped') expect(j.delta, j.instance).toEqual(byInstance.get(j.instance)!.delta);
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
    expect(plain.stdout).toMatch(/^demo__durations-1\s+gold\s+\S+\s+skipped\s+\w+ in parse_duration .*pair #\d+$/m);
    expect(plain.stdout).toMatch(/0 traced \(0 incomplete\), 4 already traced, 1 failed in \d+ s with 1 worker\(s\)/);
  }, 240_000);

  it('--emit-k8s writes a Job per instance in its image; the pod entry point run here gives the pair batch trace gives', () => {
    const cwd = tempDir();
    const repoDir = join(cwd, 'clones');
    const rows = ['durations', 'graphs'].map(p => instance(p, repoDir));
    writeFileSync(join(cwd, 'instances.json'), JSON.stringify(rows));
    const base = ['batch', 'trace', '--instances', 'instances.json', '--gold', '--repo-dir', repoDir, '--json'];
    const emitted = run([...base, '--emit-k8s', 'k8s'], cwd);
    expect(emitted.code, emitted.stderr).toBe(0);
    expect(JSON.parse(emitted.stdout).jobs).toHaveLength(2);
    type PodSpec = {
      automountServiceAccountToken: boolean;
      containers: {image: string; command: string[]; volumeMounts: unknown[]}[];
    };
    type Obj = {
      kind: string;
      metadata: {name: string};
      data?: Record<string, string>;
      spec?: {template?: {spec: PodSpec}} & Record<string, unknown>;
    };
    const list = JSON.parse(readFileSync(join(cwd, 'k8s', 'k8s.json'), 'utf8')) as {kind: string; items: Obj[]};
    expect(list.kind).toBe('List');
    const kinds = list.items.map(i => i.kind);
    expect(kinds.filter(k => k === 'Job')).toHaveLength(2);
    // the tracer, read-only; no network; the instance's own image, which has the repository
    const tracer = list.items.find(i => i.metadata.name === 'deltalens-tracer')!;
    expect(Object.keys(tracer.data!)).toEqual(expect.arrayContaining(['pod.py', 'recorder.py', '__main__.py']));
    const policy = list.items.find(i => i.kind === 'NetworkPolicy')!;
    expect(policy.spec).toEqual({
      podSelector: {matchLabels: {app: 'deltalens-trace'}},
      policyTypes: ['Ingress', 'Egress'],
    });
    const job = list.items.find(i => i.kind === 'Job')!;
    const pod = job.spec!.template!.spec;
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.containers[0]!.image).toBe('docker.io/swebench/sweb.eval.x86_64.demo_1776_durations-1:latest');
    expect(pod.containers[0]!.command.slice(1, 4)).toEqual(['-m', 'deltatrace', 'pod']);
    expect(pod.containers[0]!.volumeMounts).toContainEqual({
      name: 'tracer',
      mountPath: '/deltalens/tracer',
      readOnly: true,
    });
    // the entry point the pods run, run here on a checkout at the base commit (as /testbed is)
    for (const file of readdirSync(join(cwd, 'k8s', 'jobs'))) {
      const spec = JSON.parse(readFileSync(join(cwd, 'k8s', 'jobs', file), 'utf8')) as {instance: string};
      const project = PROJECTS.find(p => spec.instance.includes(p))!;
      const testbed = join(cwd, 'testbed', file);
      cpSync(join(repoDir, `demo__${project}`), testbed, {recursive: true});
      const r = spawnSync(
        'python3',
        [
          '-m',
          'deltatrace',
          'pod',
          '--job',
          join(cwd, 'k8s', 'jobs', file),
          '--testbed',
          testbed,
          '--out',
          join(cwd, 'results', file),
        ],
        {encoding: 'utf8', env: {...process.env, PYTHONPATH: TRACER_DIR}},
      );
      expect(r.status, r.stderr).toBe(0);
    }
    const imported = run(['traces', 'import', '--results', 'results', '--json', '--db', 'pods.db'], cwd);
    expect(imported.code, imported.stderr).toBe(0);
    const results = JSON.parse(imported.stdout).results as {status: string; instance: string; delta: unknown}[];
    expect(results.map(r => r.status)).toEqual(['imported', 'imported']);
    // the same deltas as tracing them here
    const traced = JSON.parse(run([...base, '--db', 'here.db'], cwd).stdout).jobs as {
      instance: string;
      delta: unknown;
    }[];
    expect(results.find(r => r.instance === 'demo__durations-1')!.delta).toMatchObject({
      status: 'found',
      function: 'parse_duration',
    });
    for (const r of results) expect(r.delta).toEqual(traced.find(t => t.instance === r.instance)!.delta);
    expect(
      JSON.parse(
        run(['traces', 'import', '--results', 'results', '--json', '--db', 'pods.db'], cwd).stdout,
      ).results.map((r: {status: string}) => r.status),
    ).toEqual(['already imported', 'already imported']);
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
