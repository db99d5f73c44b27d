import {spawnSync} from 'node:child_process';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {openDb} from '../../source/store/db.js';
import {ROOT, SAMPLES, tempDir} from '../helpers/files.js';

const BIN = join(ROOT, 'bin', 'deltalens.js');
const MULTI = join(SAMPLES, 'mini-swe-agent-multi');

function run(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: tempDir(),
    encoding: 'utf8',
    env: {...process.env, NO_COLOR: '1'},
  });
  return {code: result.status, stdout: result.stdout, stderr: result.stderr};
}

interface LensJson {
  threshold: {value: number; calibrated: boolean; note: string};
  runs: {
    trajectory: number;
    instance: string;
    agent: string;
    resolved: boolean | null;
    quality: number;
    signals: Record<string, number>;
    tier: string | null;
    mechanism: {id: string; evidence: string[]} | null;
    waste: {signal: string; steps: number[]}[];
    reference: {runs: number[]; excluded_lucky: number[]};
  }[];
  skipped: {instance: string; reason: string}[];
  rankings: {agent: string; pass_rank: number; quality_rank: number; shift: number}[];
  rounds: {round: number; excluded: number[]; lucky: number[]}[];
}

describe('deltalens lens on the real multi-run mini-SWE-agent set', () => {
  const db = join(tempDir(), 'lens.db');
  const imported = run(['import', MULTI, '--db', db]);

  it('labels every step and scores every passing run of every task with two or more passing runs', () => {
    expect(imported.code).toBe(0);
    const built = run(['lens', 'build', '--db', db, '--json']);
    expect(built.code, built.stderr).toBe(0);
    const r = JSON.parse(built.stdout) as LensJson;

    const conn = openDb(db, {readonly: true});
    const unlabelled = conn
      .prepare('SELECT count(*) FROM step WHERE intent_stage IS NULL OR labeller_rule IS NULL')
      .pluck()
      .get();
    const runs = conn.prepare('SELECT t.id, t.instance, t.resolved FROM trajectory t').all() as {
      id: number;
      instance: string;
      resolved: number;
    }[];
    conn.close();
    expect(unlabelled).toBe(0);

    const passingByTask = new Map<string, number[]>();
    for (const t of runs)
      if (t.resolved === 1) passingByTask.set(t.instance, [...(passingByTask.get(t.instance) ?? []), t.id]);
    const eligible = [...passingByTask].filter(([, ids]) => ids.length >= 2).flatMap(([, ids]) => ids);
    expect(eligible.length).toBeGreaterThanOrEqual(20);
    for (const id of eligible) {
      const s = r.runs.find(x => x.trajectory === id);
      expect(s, `run ${id}`).toBeDefined();
      expect(s!.quality).toBeGreaterThan(0);
      expect(s!.quality).toBeLessThanOrEqual(100);
      expect(['Ideal', 'Solid', 'Lucky']).toContain(s!.tier);
      expect(s!.reference.runs).not.toContain(id);
      for (const v of Object.values(s!.signals)) expect(v >= 0 && v <= 1).toBe(true);
      if (s!.tier === 'Lucky') expect(s!.mechanism!.evidence.length).toBeGreaterThan(0);
    }
    // the two unresolved runs are scored against their task's passing runs, without a tier
    const failing = r.runs.filter(x => x.resolved === false);
    expect(failing).toHaveLength(2);
    expect(failing.every(x => x.tier === null)).toBe(true);
    // 22 passing and 2 failing runs are too few to calibrate: said so, default used
    expect(r.threshold).toMatchObject({value: 50, calibrated: false});
    expect(r.threshold.note).toContain('has 22 and 2');
    expect(r.rankings).toHaveLength(6);
    for (const a of r.rankings) expect(a.shift).toBe(a.pass_rank - a.quality_rank);

    // report prints the stored build
    const report = run(['lens', 'report', '--db', db]);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain('threshold 50 (not calibrated');
    expect(report.stdout).toMatch(/Rankings/);
    const again = JSON.parse(run(['lens', 'report', '--db', db, '--json']).stdout) as LensJson;
    expect(again.runs.map(x => [x.trajectory, x.quality, x.tier])).toEqual(
      r.runs.map(x => [x.trajectory, x.quality, x.tier]),
    );
  });

  it("lens reference prints the tree a run was scored against: the same reference runs as the build, the run's path, where it leaves", () => {
    const built = JSON.parse(run(['lens', 'build', '--db', db, '--json']).stdout) as LensJson;
    const scored = built.runs.find(r => r.resolved)!;
    const ref = run(['lens', 'reference', String(scored.trajectory), '--db', db, '--json']);
    expect(ref.code, ref.stderr).toBe(0);
    const v = JSON.parse(ref.stdout) as {
      trajectory: number;
      reference_runs: number[];
      excluded_lucky: number[];
      leaves_at: {state: number; step: number} | null;
      states: {step: number; on_path: boolean}[];
      tree: {on_path: boolean; children: unknown[]};
    };
    expect(v.trajectory).toBe(scored.trajectory);
    expect([...v.reference_runs].sort()).toEqual([...scored.reference.runs].sort());
    expect(v.reference_runs).not.toContain(scored.trajectory); // leave-one-out
    expect(v.excluded_lucky).toEqual(scored.reference.excluded_lucky);
    expect(v.states.length).toBeGreaterThan(0);
    // the states on the path are exactly those before the one where the run leaves
    const onPath = v.states.filter(s => s.on_path).length;
    expect(onPath).toBe(v.leaves_at ? v.leaves_at.state - 1 : v.states.length);
    expect(v.tree.children.length).toBeGreaterThan(0);
    const text = run(['lens', 'reference', String(scored.trajectory), '--db', db]);
    expect(text.stdout).toContain(`reference from ${v.reference_runs.length} passing run(s)`);
    expect(run(['lens', 'reference', '99999', '--db', db])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no lens run with id 99999'),
    });
    expect(run(['lens', 'reference', '--db', db]).code).toBe(2);
    // trajectories --tier lists the runs the build gave that tier; --sort lens orders by quality
    const lucky = built.runs
      .filter(r => r.tier === 'Lucky')
      .map(r => r.trajectory)
      .sort((a, b) => a - b);
    const listed = JSON.parse(run(['trajectories', '--tier', 'lucky', '--json', '--db', db]).stdout) as {
      trajectories: {id: number}[];
    };
    expect(listed.trajectories.map(t => t.id).sort((a, b) => a - b)).toEqual(lucky);
    const byQuality = JSON.parse(run(['trajectories', '--sort', 'lens', '--desc', '--json', '--db', db]).stdout) as {
      trajectories: {id: number}[];
    };
    const quality = new Map(built.runs.map(r => [r.trajectory, r.quality]));
    const qualities = byQuality.trajectories.map(t => quality.get(t.id)).filter((q): q is number => q !== undefined);
    expect(qualities.length).toBeGreaterThan(1);
    expect(qualities).toEqual([...qualities].sort((a, b) => b - a));
    expect(run(['trajectories', '--tier', 'great', '--db', db]).code).toBe(2);
  });

  it('--min-passing 4 skips tasks with fewer passing runs and says why; --instance limits the build', () => {
    const r = JSON.parse(run(['lens', 'build', '--db', db, '--min-passing', '4', '--json']).stdout) as LensJson;
    expect(r.skipped.map(s => s.instance).sort()).toEqual([
      'astropy__astropy-7166',
      'django__django-11095',
      'django__django-11206',
      'django__django-11239',
    ]);
    expect(r.skipped.find(s => s.instance === 'django__django-11239')!.reason).toBe('2 passing runs; needs at least 4');
    expect(new Set(r.runs.map(x => x.instance))).toEqual(
      new Set(['astropy__astropy-14309', 'astropy__astropy-7336', 'django__django-11099']),
    );
    const one = JSON.parse(
      run(['lens', 'build', '--db', db, '--instance', 'django__django-11099', '--json']).stdout,
    ) as LensJson;
    expect(one.runs).toHaveLength(4);
    expect(run(['lens', 'build', '--db', db, '--instance', 'nope'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no stored trajectory of instance "nope"'),
    });
    expect(run(['lens', 'build', '--db', db, '--min-passing', '1'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('at least 2'),
    });
  });

  it("--exclude-lucky reports its rounds and keeps Lucky runs out of the other runs' references", () => {
    const r = JSON.parse(run(['lens', 'build', '--db', db, '--exclude-lucky', '--json']).stdout) as LensJson;
    expect(r.rounds.length).toBeGreaterThanOrEqual(1);
    const last = r.rounds.at(-1)!;
    for (const s of r.runs)
      for (const id of s.reference.runs)
        expect(last.excluded.includes(id) && s.reference.excluded_lucky.length > 0).toBe(false);
  });

  it("people correct stages; agreement gives Cohen's κ against the labeller; build uses the correction", () => {
    const conn = openDb(db, {readonly: true});
    const steps = conn
      .prepare('SELECT trajectory, idx, intent_stage FROM step WHERE trajectory = 3 ORDER BY idx')
      .all() as {trajectory: number; idx: number; intent_stage: string}[];
    conn.close();
    // ann agrees on every step of run 3; bo disagrees on one
    for (const s of steps)
      expect(run(['lens', 'override', '3', String(s.idx), s.intent_stage, '--annotator', 'ann', '--db', db]).code).toBe(
        0,
      );
    const flipped = steps[0]!.intent_stage === 'E' ? 'V' : 'E';
    expect(
      run(['lens', 'override', '3', '0', flipped, '--annotator', 'bo', '--note', 'a check', '--db', db]).code,
    ).toBe(0);
    const a = JSON.parse(run(['lens', 'agreement', '--db', db, '--json']).stdout) as {
      overall: {n: number; raw: number; cohen_kappa: number};
      annotators: {annotator: string; n: number; cohen_kappa: number}[];
    };
    expect(a.overall.n).toBe(steps.length + 1);
    expect(a.annotators.find(x => x.annotator === 'ann')).toMatchObject({n: steps.length, cohen_kappa: 1});
    expect(a.annotators.find(x => x.annotator === 'bo')).toMatchObject({n: 1});
    expect(a.overall.raw).toBeCloseTo(steps.length / (steps.length + 1), 3);

    const built = JSON.parse(run(['lens', 'build', '--db', db, '--json']).stdout) as LensJson & {
      overridden_steps: number;
    };
    expect(built.overridden_steps).toBe(steps.length);
    expect(run(['lens', 'override', '3', '0', 'X', '--annotator', 'bo', '--db', db])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('E, I, V, O'),
    });
    expect(run(['lens', 'override', '3', '999', 'E', '--annotator', 'bo', '--db', db])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('has no step 999'),
    });
    expect(run(['lens', 'override', '3', '0', 'E', '--db', db])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--annotator'),
    });
    expect(run(['lens', 'override', '3', '0', '--remove', '--annotator', 'bo', '--db', db]).code).toBe(0);
  });

  it('report before any build says what to run', () => {
    const empty = join(tempDir(), 'empty.db');
    openDb(empty).close();
    expect(run(['lens', 'report', '--db', empty])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('run `deltalens lens build` first'),
    });
  });
});
