import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import {join, relative} from 'node:path';
import {describe, expect, it} from 'vitest';
import {countTrajectories, getSteps, getTrajectory, listTrajectories} from '../../source/store/trajectories.js';
import {freshDb, importInto, snapshot} from '../helpers/db.js';
import {SAMPLES, SHARED, tempDir} from '../helpers/files.js';

const MINI = join(SAMPLES, 'mini-swe-agent', 'django__django-11099.traj.json');
const SWE = join(SAMPLES, 'swe-agent', 'pydicom__pydicom-1458.traj');
const OPENHANDS = join(SAMPLES, 'openhands', 'basic.json');

/** Real data: the shared DEV set when it is beside the checkout, else the bundled byte-exact copies. */
const DATA = existsSync(SHARED) ? SHARED : SAMPLES;

describe('importing every real trajectory file', () => {
  const {db} = freshDb();
  const report = importInto(db, [DATA]);
  const byPath = new Map(report.added.map(a => [relative(DATA, a.path), a]));
  const multiResults = JSON.parse(readFileSync(join(DATA, 'mini-swe-agent-multi', 'results.json'), 'utf8')) as Record<
    string,
    {resolved: string[]; unresolved: string[]}
  >;

  it('fails on nothing', () => {
    expect(report.failed).toEqual([]);
  });

  it('detects the format of each trajectory file', () => {
    expect(byPath.get('swe-agent/pydicom__pydicom-1458.traj')?.format).toBe('swe-agent');
    expect(byPath.get('openhands/basic.json')?.format).toBe('openhands');
    expect(byPath.get('mini-swe-agent/django__django-11099.traj.json')?.format).toBe('mini-swe-agent');
    const multi = [...byPath.entries()].filter(([path]) => path.startsWith('mini-swe-agent-multi/'));
    expect(multi.every(([, a]) => a.format === 'mini-swe-agent')).toBe(true);
  });

  it('imports all 24 multi-run files: 23 new and one byte-identical to the single mini-SWE-agent file', () => {
    const files = Object.keys(multiResults).flatMap(run => readdirSync(join(DATA, 'mini-swe-agent-multi', run)));
    expect(files).toHaveLength(24);
    const multiAdded = [...byPath.keys()].filter(path => path.startsWith('mini-swe-agent-multi/'));
    expect(multiAdded).toHaveLength(23);
    const duplicate = report.skipped.find(s =>
      s.path.endsWith('results-baseline-truncated-16k/django__django-11099.traj.json'),
    );
    expect(duplicate?.existing).toBe(byPath.get('mini-swe-agent/django__django-11099.traj.json')?.id);
    // and says what that does: the configuration has one run fewer, and how to count it under both
    expect(duplicate?.reason).toMatch(
      /^byte-identical to run #\d+ of mini-swe-agent 1\.17\.0: not imported again as results-baseline-truncated-16k, which has one run fewer \(import with --identical both to count it under both\)$/,
    );
  });

  it('--identical both counts the byte-identical run under its configuration too; importing again changes nothing', () => {
    const {db: other} = freshDb();
    importInto(other, [DATA]);
    const config = () => countTrajectories(other, {agent: 'results-baseline-truncated-16k'});
    expect(config()).toBe(3);
    const both = importInto(other, [DATA], {identical: 'both'});
    expect(both.added.map(a => `${a.agent} ${relative(DATA, a.path)}`)).toEqual([
      'results-baseline-truncated-16k mini-swe-agent-multi/results-baseline-truncated-16k/django__django-11099.traj.json',
    ]);
    expect(config()).toBe(4);
    expect(importInto(other, [DATA], {identical: 'both'}).added).toEqual([]);
  });

  it('gives each run its configuration as agent and the resolved status its results.json gives', () => {
    for (const [path, added] of byPath) {
      if (!path.startsWith('mini-swe-agent-multi/')) continue;
      const run = path.split('/')[1]!;
      expect(added.agent).toBe(run);
      const expected = multiResults[run]!.resolved.includes(added.instance)
        ? true
        : multiResults[run]!.unresolved.includes(added.instance)
          ? false
          : null;
      expect(added.resolved, path).toBe(expected);
      expect(added.resolvedSource).toBe(join(DATA, 'mini-swe-agent-multi', 'results.json'));
    }
  });

  it('reads the single run as resolved from the report beside it; others stay unknown', () => {
    expect(byPath.get('mini-swe-agent/django__django-11099.traj.json')?.resolved).toBe(true);
    expect(byPath.get('swe-agent/pydicom__pydicom-1458.traj')?.resolved).toBeNull();
    expect(byPath.get('openhands/basic.json')?.resolved).toBeNull();
  });

  it('stores a non-empty explanation for every run and a patch wherever the source has one', () => {
    for (const [path, added] of byPath) {
      const t = getTrajectory(db, added.id)!;
      expect(t.explanation?.length, path).toBeGreaterThan(20);
      if (added.format !== 'openhands') expect(t.patch, path).toMatch(/diff --git/);
      expect(getSteps(db, added.id)).toHaveLength(added.steps);
    }
  });

  it('fills the instance record from the SWE-bench instance file', () => {
    const row = db
      .prepare('SELECT repo, base_commit, fail_to_pass FROM instance WHERE id = ?')
      .get('django__django-11099') as Record<string, string>;
    expect(row['repo']).toBe('django/django');
    expect(JSON.parse(row['fail_to_pass']!)).toContain(
      'test_ascii_validator (auth_tests.test_validators.UsernameValidatorsTests)',
    );
  });

  it('skips what is not a trajectory, saying why, without failing', () => {
    const reasons = new Set(report.skipped.map(s => s.reason.replace(/ \(.*$/, '')));
    expect(reasons).toContain('results file: gives resolved status to the trajectories beside it');
    if (DATA === SHARED) expect(reasons).toContain('ExplainBench question data, not a trajectory');
  });
});

describe('re-importing', () => {
  it('changes nothing and reports every file as skipped', () => {
    const {db} = freshDb();
    const first = importInto(db, [SAMPLES]);
    const before = snapshot(db);
    const second = importInto(db, [SAMPLES]);
    expect(first.added.length).toBeGreaterThan(20);
    expect(second.added).toEqual([]);
    expect(second.skipped.filter(s => s.reason.startsWith('already imported'))).toHaveLength(first.added.length);
    // the run byte-identical to another configuration's is named again, as at the first import
    expect(second.skipped.filter(s => s.reason.startsWith('byte-identical'))).toHaveLength(1);
    expect(snapshot(db)).toEqual(before);
  });
});

describe('bad input leaves the database exactly as it was', () => {
  function setup() {
    const {db} = freshDb();
    importInto(db, [SWE]);
    return {db, before: snapshot(db), dir: tempDir()};
  }

  it('truncated JSON: names the line and column, other files in the call still import', () => {
    const {db, before, dir} = setup();
    const text = readFileSync(MINI, 'utf8');
    const bad = join(dir, 'cut.traj.json');
    writeFileSync(bad, text.slice(0, 30_000));
    const report = importInto(db, [bad, OPENHANDS]);
    expect(report.failed).toHaveLength(1);
    expect(report.failed[0]!.path).toBe(bad);
    expect(report.failed[0]!.error).toMatch(/^line \d+:\d+: invalid JSON/);
    expect(report.failed[0]!.line).toBe(text.slice(0, 30_000).split('\n').length);
    expect(report.added.map(a => a.path)).toEqual([OPENHANDS]);
    const after = snapshot(db);
    expect(after['trajectory']).toHaveLength((before['trajectory'] as unknown[]).length + 1);
  });

  it('wrong format: names the missing field and what the file looks like', () => {
    const {db, before} = setup();
    const report = importInto(db, [MINI], {format: 'swe-agent'});
    expect(report.failed[0]!.jsonPath).toBe('$.trajectory');
    expect(report.failed[0]!.error).toMatch(
      /\$\.trajectory: required array is missing \(this file looks like mini-swe-agent/,
    );
    expect(snapshot(db)).toEqual(before);
  });

  it('a JSON file that is no trajectory at all, named on the command line, fails', () => {
    const {db, before, dir} = setup();
    const other = join(dir, 'other.json');
    writeFileSync(other, JSON.stringify({hello: 'world'}));
    const report = importInto(db, [other]);
    expect(report.failed[0]!.error).toMatch(/unrecognised format: a JSON object with keys "hello"/);
    expect(snapshot(db)).toEqual(before);
  });

  it('missing fields: names the JSON path', () => {
    const {db, before, dir} = setup();
    const doc = JSON.parse(readFileSync(MINI, 'utf8'));
    delete doc.messages[4].role;
    const bad = join(dir, 'norole.traj.json');
    writeFileSync(bad, JSON.stringify(doc));
    const report = importInto(db, [bad]);
    expect(report.failed[0]!.jsonPath).toBe('$.messages[4].role');
    expect(snapshot(db)).toEqual(before);
  });

  it('non-UTF-8 bytes: names the line', () => {
    const {db, before, dir} = setup();
    const bytes = readFileSync(MINI);
    const lineStart = bytes.indexOf('\n', 2000) + 1;
    const bad = join(dir, 'latin1.traj.json');
    writeFileSync(
      bad,
      Buffer.concat([bytes.subarray(0, lineStart + 10), Buffer.from([0xe9, 0x20]), bytes.subarray(lineStart + 10)]),
    );
    const report = importInto(db, [bad]);
    const expectedLine = bytes.subarray(0, lineStart).toString('utf8').split('\n').length;
    expect(report.failed[0]!.error).toMatch(/invalid UTF-8 byte 0xe9/);
    expect(report.failed[0]!.line).toBe(expectedLine);
    expect(snapshot(db)).toEqual(before);
  });

  it('a 200 MB JSON file is refused before it is read', () => {
    const {db, before, dir} = setup();
    const big = join(dir, 'huge.traj.json');
    writeFileSync(big, '');
    truncateSync(big, 200 * 1024 * 1024); // sparse: no 200 MB written to disk
    const report = importInto(db, [big]);
    expect(report.failed[0]!.error).toMatch(/file is 200\.0 MB, over the 100\.0 MB limit .*raise --max-size/);
    expect(snapshot(db)).toEqual(before);
  });

  it('a bad line in the middle of a JSONL file drops the trajectory it is in and keeps the ones before it', () => {
    const {db, dir} = setup();
    const file = join(dir, 'runs.jsonl');
    const lines = [
      {type: 'trajectory', instance: 'a__b-1', agent: 'x'},
      {type: 'step', thought: 't', tool: 'bash', action: 'ls'},
      {type: 'trajectory', instance: 'a__b-2', agent: 'x'},
      {type: 'step', thought: 't', tool: 'bash', args: 'not an object'},
    ];
    writeFileSync(file, lines.map(line => JSON.stringify(line)).join('\n'));
    const report = importInto(db, [file]);
    expect(report.failed[0]).toMatchObject({line: 4, jsonPath: '$.args'});
    expect(report.added.map(a => a.instance)).toEqual(['a__b-1']);
    expect(db.prepare('SELECT instance FROM trajectory ORDER BY id').pluck().all()).toContain('a__b-1');
    expect(db.prepare("SELECT count(*) FROM trajectory WHERE instance = 'a__b-2'").pluck().get()).toBe(0);
    expect(db.inTransaction).toBe(false);
    // fixed and imported again: the first is already there, the second is added
    lines[3] = {type: 'step', thought: 't', tool: 'bash', action: 'pwd'};
    writeFileSync(file, lines.map(line => JSON.stringify(line)).join('\n'));
    const again = importInto(db, [file]);
    expect(again.failed).toEqual([]);
    expect(again.skipped.map(s => s.reason)).toEqual(['already imported (same content)']);
    expect(again.added.map(a => a.instance)).toEqual(['a__b-2']);
  });
});

describe('generic JSONL', () => {
  it('imports several trajectories from one file, each with its own hash', () => {
    const {db} = freshDb();
    const file = join(tempDir(), 'runs.jsonl');
    const lines = [
      {type: 'trajectory', instance: 'a__b-1', agent: 'my-agent', model: 'm1'},
      {type: 'step', thought: 'look', tool: 'bash', action: 'ls', observation: 'x.py'},
      {type: 'step', thought: 'I changed x because y.', tool: 'submit'},
      {type: 'end', patch: 'diff --git a/x.py b/x.py', resolved: false},
      {type: 'trajectory', instance: 'a__b-2', agent: 'my-agent', model: 'm1', explanation: 'given'},
      {type: 'step', tool: 'bash', action: 'pytest'},
    ];
    writeFileSync(file, `${lines.map(line => JSON.stringify(line)).join('\n')}\n`);
    const report = importInto(db, [file]);
    expect(report.failed).toEqual([]);
    expect(report.added.map(a => [a.instance, a.steps, a.resolved, a.locator])).toEqual([
      ['a__b-1', 2, false, 'lines 1-4'],
      ['a__b-2', 1, null, 'lines 5-6'],
    ]);
    expect(getTrajectory(db, report.added[0]!.id)!.explanation).toBe('I changed x because y.');
    expect(getTrajectory(db, report.added[1]!.id)!.explanation).toBe('given');
    expect(importInto(db, [file]).added).toEqual([]);
  });
});

describe('SWE-bench experiments run folder and harness summaries', () => {
  it('reads trajs/ and logs/<id>/report.json, and names the agent after the folder', () => {
    const {db} = freshDb();
    const run = join(tempDir(), '20240101_swe-agent_gpt4');
    mkdirSync(join(run, 'trajs'), {recursive: true});
    mkdirSync(join(run, 'logs', 'pydicom__pydicom-1458'), {recursive: true});
    copyFileSync(SWE, join(run, 'trajs', 'pydicom__pydicom-1458.traj'));
    writeFileSync(
      join(run, 'logs', 'pydicom__pydicom-1458', 'report.json'),
      JSON.stringify({'pydicom__pydicom-1458': {resolved: true}}),
    );
    const report = importInto(db, [run], {format: 'swe-bench-run'});
    expect(report.failed).toEqual([]);
    expect(report.added).toHaveLength(1);
    expect(report.added[0]).toMatchObject({
      agent: '20240101_swe-agent_gpt4',
      resolved: true,
      instance: 'pydicom__pydicom-1458',
    });
    expect(getTrajectory(db, report.added[0]!.id)!.meta['tool']).toBe('swe-agent');
  });

  it('--results overrides, and --agent names runs whose files do not', () => {
    const {db} = freshDb();
    const dir = tempDir();
    cpSync(join(SAMPLES, 'mini-swe-agent'), dir, {recursive: true});
    const summary = join(tempDir(), 'gpt.run1.json');
    writeFileSync(
      summary,
      JSON.stringify({schema_version: 2, resolved_ids: [], unresolved_ids: ['django__django-11099']}),
    );
    const report = importInto(db, [dir], {results: [summary], agent: 'my-run'});
    expect(report.added[0]).toMatchObject({resolved: false, resolvedSource: summary, agent: 'my-run'});
    expect(listTrajectories(db, {agent: 'my-run', resolved: false})).toHaveLength(1);
    expect(countTrajectories(db, {resolved: true})).toBe(0);
  });
});
