import {spawnSync} from 'node:child_process';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {ROOT, SAMPLES, tempDir} from '../helpers/files.js';

const BIN = join(ROOT, 'bin', 'deltalens.js');
const run = (args: string[], cwd: string) => {
  const r = spawnSync(process.execPath, [BIN, ...args], {cwd, encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}});
  return {code: r.status, stdout: r.stdout, stderr: r.stderr};
};

describe('deltalens reasoning', () => {
  it('import tags every step; the report gives prevalence, the chi-square test, families, phases; re-tagging gives the same marks', () => {
    const cwd = tempDir();
    expect(run(['import', join(SAMPLES, 'mini-swe-agent-multi')], cwd).code).toBe(0);
    const report = JSON.parse(run(['reasoning', 'report', '--json'], cwd).stdout);
    expect(report.runs).toBe(24);
    const untruncated = report.agents.find((a: {agent: string}) => a.agent === 'results-baseline-untruncated');
    // astropy-14309, astropy-7336 and one django run reason (E raises, …); the other django run does not:
    // [[2, 1], [1, 0]] → expected 2.25, 0.75, 0.75, 0.25 → chi2 = 0.0278 + 0.0833 + 0.0833 + 0.25 = 0.4444
    expect(untruncated).toMatchObject({
      runs: 4,
      with_reasoning: 3,
      resolved_with: 2,
      with_known: 3,
      resolved_without: 1,
      without_known: 1,
      note: expect.stringContaining('too few runs'),
    });
    expect(untruncated.chi2).toBeCloseTo(0.4444, 3);
    expect(report.families.E.kinds.raises.marks).toBeGreaterThan(5);
    expect(report.families.obs.runs).toBeGreaterThan(10);
    expect(report.families.obs.kinds.reproduced.runs).toBeGreaterThan(0);
    expect(Object.keys(report.phases).sort()).toEqual(['general', 'localization', 'patch', 'validation']);
    const phased = Object.values(report.phases as Record<string, {node_occurrences: number}>).reduce(
      (s, p) => s + p.node_occurrences,
      0,
    );
    expect(phased).toBe(report.steps_tagged);
    const perRun = Object.values(report.reproduction_before_first_edit.per_run as Record<string, number>);
    expect(perRun).toHaveLength(24);
    expect(perRun.filter(n => n > 0)).toHaveLength(report.reproduction_before_first_edit.with_any);
    expect(report.tagging_runs[0]).toMatchObject({
      detector: 'default',
      version: 2,
      settings: {minChars: 50, maxMarks: 200},
    });

    // the step's marks in show --json, each span pointing at its text in the thought
    const list = JSON.parse(run(['trajectories', '--agent', 'results-baseline-untruncated', '--json'], cwd).stdout);
    const astropy = list.trajectories.find((t: {instance: string}) => t.instance === 'astropy__astropy-14309');
    const shown = JSON.parse(run(['show', 'trajectory', String(astropy.id), '--json'], cwd).stdout);
    const marked = shown.steps.filter((s: {reasoning: unknown[]}) => s.reasoning.length);
    expect(marked.length).toBeGreaterThan(0);
    for (const s of marked) for (const m of s.reasoning) expect(s.thought.slice(m.span[0], m.span[1])).toBe(m.text);

    const tagged = JSON.parse(run(['reasoning', 'tag', '--json'], cwd).stdout).tagged;
    expect(tagged).toMatchObject({runs: 24, detector: 'default'});
    const again = JSON.parse(run(['reasoning', 'report', '--json'], cwd).stdout);
    expect(again.families).toEqual(report.families);
    // the artifact's scan, tagged on demand: its run decisions are what the report counts
    expect(JSON.parse(run(['reasoning', 'tag', '--detector', 'deskcheck', '--json'], cwd).stdout).tagged).toMatchObject(
      {runs: 24, detector: 'deskcheck'},
    );
    const desk = JSON.parse(run(['reasoning', 'report', '--detector', 'deskcheck', '--json'], cwd).stdout);
    // the artifact decides 14 of the 25 sample files reason; 24 of them are in this import (not mini-swe-agent/)
    const decided = desk.agents.reduce((n: number, a: {with_reasoning: number}) => n + a.with_reasoning, 0);
    expect(decided).toBe(13);
    expect(desk.tagging_runs.find((t: {detector: string}) => t.detector === 'deskcheck')).toMatchObject({
      version: 1,
      settings: {min_score: 1, prose_hits: 1, min_reasoning_snippets: 2},
    });
    // show --json gives every detector's marks, each naming its detector, its span on the thought
    const both = JSON.parse(run(['show', 'trajectory', String(astropy.id), '--json'], cwd).stdout);
    const detectors = new Set(
      both.steps.flatMap((s: {reasoning: {detector: string}[]}) => s.reasoning.map(m => m.detector)),
    );
    expect([...detectors].sort()).toEqual(['default', 'deskcheck']);
    for (const s of both.steps)
      for (const m of s.reasoning)
        expect((m.on === 'action' ? s.action : s.thought).slice(m.span[0], m.span[1])).toBe(m.text);
    expect(
      both.steps.some((s: {reasoning: {detector: string; on: string}[]}) =>
        s.reasoning.some(m => m.detector === 'deskcheck' && m.on === 'thought'),
      ),
    ).toBe(true);
    // the default detector's marks are those it gave before
    expect(
      both.steps.map((s: {reasoning: {detector: string}[]}) => s.reasoning.filter(m => m.detector === 'default')),
    ).toEqual(shown.steps.map((s: {reasoning: unknown[]}) => s.reasoning));
    // the plain report is one table per topic
    const plain = run(['reasoning', 'report'], cwd).stdout;
    expect(plain).toContain('E return value / exception');
    expect(plain).toContain('localization (E)');
  });

  it('usage errors are one line with exit 2', () => {
    const cwd = tempDir();
    for (const [args, message] of [
      [['reasoning', 'report', '--detector', 'nope'], '--detector must be one of'],
      [['reasoning', 'count'], 'tag, report, localization or check'],
      [['reasoning', 'report', 'x'], 'takes no arguments'],
    ] as [string[], string][]) {
      const r = run(args, cwd);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
    }
  });
});
