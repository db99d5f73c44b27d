import {execFileSync, spawnSync} from 'node:child_process';
import {copyFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {ROOT, SAMPLES, tempDir} from '../helpers/files.js';

const BIN = join(ROOT, 'bin', 'deltalens.js');

function run(args: string[], cwd = tempDir()) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: {...process.env, NO_COLOR: '1'},
  });
  return {code: result.status, stdout: result.stdout, stderr: result.stderr};
}

describe('deltalens CLI', () => {
  it('--help is true for every command, exit 0', () => {
    const main = run(['--help']);
    expect(main.code).toBe(0);
    for (const command of [
      'import',
      'trajectories',
      'show',
      'build-demo',
      'explore',
      'trace',
      'delta',
      'traces',
      'questions',
      'explanations',
      'score',
      'report',
      'lens',
      'annotate',
      'adjudicate',
      'agreement',
      'flags',
      'annotations',
    ]) {
      expect(main.stdout).toContain(command);
      const help = run([command, '--help']);
      expect(help.code, command).toBe(0);
      expect(help.stdout, command).toMatch(/^Usage: deltalens/);
    }
  });

  it('usage errors exit 2 and say what is wrong', () => {
    expect(run(['frobnicate'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no such command "frobnicate"'),
    });
    expect(run(['import'])).toMatchObject({code: 2, stderr: expect.stringContaining('at least one PATH')});
    expect(run(['import', 'x', '--format', 'nope'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--format must be one of'),
    });
    expect(run(['trajectories', '--bogus'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Unknown option '--bogus'"),
    });
    expect(run(['show', 'trajectory', 'abc'])).toMatchObject({code: 2});
  });

  it('imports with --json, lists, shows, and exits 1 when one file fails', () => {
    const cwd = tempDir();
    const bad = join(cwd, 'bad.traj.json');
    writeFileSync(bad, '{"messages": [');
    copyFileSync(join(SAMPLES, 'swe-agent', 'pydicom__pydicom-1458.traj'), join(cwd, 'pydicom__pydicom-1458.traj'));
    const imported = run(['import', 'pydicom__pydicom-1458.traj', 'bad.traj.json', '--json'], cwd);
    expect(imported.code).toBe(1);
    const report = JSON.parse(imported.stdout);
    expect(report.added).toHaveLength(1);
    expect(report.added[0]).toMatchObject({
      instance: 'pydicom__pydicom-1458',
      format: 'swe-agent',
      steps: 12,
      resolved: null,
    });
    expect(report.failed).toEqual([
      {
        path: bad,
        error: expect.stringMatching(/^line 1:\d+: invalid JSON/),
        line: 1,
        column: expect.any(Number),
        json_path: null,
      },
    ]);

    const again = JSON.parse(run(['import', 'pydicom__pydicom-1458.traj', '--json'], cwd).stdout);
    expect(again.added).toEqual([]);
    expect(again.skipped[0]).toMatchObject({
      reason: 'already imported (same content)',
      existing_id: report.added[0].id,
    });

    // ./deltalens.db is the default once it exists
    const list = run(['trajectories', '--json', '--resolved', 'unknown'], cwd);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual({
      total: 1,
      trajectories: [
        expect.objectContaining({
          id: report.added[0].id,
          instance: 'pydicom__pydicom-1458',
          agent: 'swe-agent',
          steps: 12,
        }),
      ],
    });

    const shown = run(['show', 'trajectory', String(report.added[0].id), '--json'], cwd);
    const detail = JSON.parse(shown.stdout);
    expect(detail.steps).toHaveLength(12);
    expect(detail.steps[11]).toMatchObject({
      idx: 11,
      tool: 'submit',
      action: 'submit',
      stage: 'O',
      rule: 'submit',
      rule_inputs: {first_source_edit: expect.any(Number)},
    });
    expect(detail.explanation).toMatch(/^The `reproduce_bug.py` script/);
    expect(detail.patch).toContain('diff --git');

    expect(run(['show', 'trajectory', '999', '--json'], cwd)).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no trajectory with id 999'),
    });
  });

  it('refuses to open the explorer without a terminal and points to --json', () => {
    const result = run(['--db', join(tempDir(), 'x.db')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('trajectories --json');
  });

  it('builds the demo database on first use (the default when ./deltalens.db is absent), demo traces included', () => {
    const out = execFileSync(process.execPath, [BIN, 'trajectories', '--json', '--limit', '3'], {
      cwd: tempDir(),
      encoding: 'utf8',
    });
    const parsed = JSON.parse(out);
    expect(parsed.total).toBeGreaterThanOrEqual(25);
    expect(parsed.trajectories).toHaveLength(3);
    // the three demo projects, each traced with its gold and three agent patches, and the nine
    // pairs the demo audits traced (each project's test before and after each agent patch)
    const pairs = JSON.parse(
      execFileSync(process.execPath, [BIN, 'traces', '--json'], {cwd: tempDir(), encoding: 'utf8'}),
    ).pairs;
    expect(pairs).toHaveLength(22);
    expect(pairs.filter((p: {label: string}) => p.label === 'audit')).toHaveLength(9);
    // and the ExplainBench trace samples of sympy-20801, imported
    expect(pairs.find((p: {instance: string}) => p.instance === 'sympy__sympy-20801')).toMatchObject({
      delta: {status: 'found', function: 'Float.__eq__'},
    });
    const byLabel = (label: string) => pairs.filter((p: {label: string}) => p.label === label);
    for (const p of byLabel('gold'))
      expect(p).toMatchObject({
        outcomes: {buggy: {status: 'failed'}, patched: {status: 'passed'}},
        delta: {status: 'found'},
      });
    for (const p of byLabel('agent-ineffective'))
      expect(p).toMatchObject({
        outcomes: {buggy: {status: 'failed'}, patched: {status: 'failed'}},
        delta: {status: 'none'},
      });
    for (const p of byLabel('agent-wrong'))
      expect(p).toMatchObject({outcomes: {patched: {status: 'failed'}}, delta: {status: 'found'}});
    // built questions beside the hand-written ones: all four types for each project, and each
    // project's ineffective patch keyed "the patch has no effect"
    const questions = execFileSync(process.execPath, [BIN, 'questions', 'export', '-'], {
      cwd: tempDir(),
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .map(l => JSON.parse(l));
    const built = questions.filter((q: {id: string}) => q.id.includes('/built/'));
    expect(built).toHaveLength(24);
    const none = built.filter((q: {id: string}) => q.id.endsWith('/built/local_effect/demo-agent-ineffective'));
    expect(none).toHaveLength(3);
    for (const q of none) expect(q.choices.find((c: {label: string}) => c.label === q.answer).role).toBe('no_effect');
    // the demo agents' explanations audited offline, marked as such, each done
    const audits = JSON.parse(
      execFileSync(process.execPath, [BIN, 'audit', 'list', '--json'], {cwd: tempDir(), encoding: 'utf8'}),
    );
    const agents = ['demo-agent-correct', 'demo-agent-ineffective', 'demo-agent-wrong'];
    expect(
      audits.map((a: {instance: string; agent: string; status: string; model: string}) => [
        a.instance,
        a.agent,
        a.status,
        a.model,
      ]),
    ).toEqual(
      ['demo__durations-1', 'demo__graphs-1', 'demo__ledger-1'].flatMap(i =>
        agents.map(a => [i, a, 'done', 'offline-scripted-auditor']),
      ),
    );
    expect(audits[2].refined).toContain('still fails after the patch');
    expect(audits[0].refined).toContain('passes after it');
    // the wrong graphs patch: behaviour first differs in a nested function, and the call graph
    // (the audit's test traced with it as the focus) says how the test reached it
    const graphs = JSON.parse(
      execFileSync(process.execPath, [BIN, 'audit', 'show', String(audits[5].id), '--json'], {
        cwd: tempDir(),
        encoding: 'utf8',
      }),
    ).audit;
    expect(graphs.tool_calls.map((c: {tool: string}) => c.tool)).toEqual(['diff_execution', 'inspect_call_graph']);
    expect(graphs.tool_calls[1].arguments).toEqual({function: 'topo_sort.<locals>.visit'});
    expect(graphs.tool_calls[1].result.chains[0].chain.map((f: string) => f.split(' ')[0])).toEqual([
      'topo_sort.<locals>.visit',
      'topo_sort',
      'test_cycle_is_reported',
    ]);
    expect(graphs.refined).toContain(
      'reached from test_cycle_is_reported through topo_sort → topo_sort.<locals>.visit',
    );
  }, 300_000);
});

describe('run from the sources (a source file newer than the bundle)', () => {
  it('the explorer draws its screen when started from another folder (the project tsconfig, its JSX runtime)', () => {
    const cwd = tempDir();
    const db = join(cwd, 'runs.db');
    execFileSync(process.execPath, [BIN, 'import', join(SAMPLES, 'mini-swe-agent'), '--db', db]);
    // the pseudo-terminal the explorer needs; it is stopped after its first screens
    const r = spawnSync('script', ['-qfec', `${process.execPath} ${BIN} --db ${db}`, '/dev/null'], {
      cwd,
      encoding: 'utf8',
      env: {...process.env, NO_COLOR: '1', DELTALENS_FROM_SOURCE: '1'},
      timeout: 10_000,
      killSignal: 'SIGKILL',
    });
    const out = r.stdout + r.stderr;
    expect(out).not.toContain('React is not defined');
    expect(out).toMatch(/Enter open/);
  }, 30_000);
});
