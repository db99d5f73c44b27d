import {existsSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {AuditTools} from '../../source/services/audit-tools.js';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {freshDb} from '../helpers/db.js';

const P = join(PROJECTS_DIR, 'durations');
let tools: AuditTools;
beforeAll(async () => {
  tools = await AuditTools.open(freshDb().db, {
    instance: 'demo__durations-1',
    buggyDir: join(P, 'repo'),
    // the wrong agent patch: keeps the largest part, still not 5400 for "1h30m"
    patch: readFileSync(join(P, 'patches', 'agent-wrong.diff'), 'utf8'),
    python: process.env.DELTALENS_PYTHON ?? 'python3',
    sandbox: 'prefer', // our own demo project
    timeoutS: 8,
    maxOutput: 4000,
  });
}, 60_000);
afterAll(() => tools?.close());

const TEST = `from durations.parse import parse_duration


def test_compound():
    assert parse_duration("1h30m") == 5400
`;

describe('the audit tools, on the demo durations bug with the wrong agent patch', () => {
  it('diff_execution runs the test before and after the patch and says where behaviour first differs', async () => {
    const r = await tools.diffExecution(TEST);
    if ('error' in r) throw new Error(r.error);
    expect(r.before).toMatchObject({outcome: 'failed', exit_code: 1});
    // the wrong patch still fails the test: the explanation "fixes the bug" is contradicted
    expect(r.after).toMatchObject({outcome: 'failed', exit_code: 1});
    expect(r.after.stdout).toContain('assert');
    expect(r.delta).toMatchObject({function: 'parse_duration', file: 'durations/parse.py'});
    // a test that is not one is a tool error
    expect(await tools.diffExecution('print(1)')).toMatchObject({error: expect.stringContaining('def test_')});
  }, 60_000);

  it('read_file and write_file act only inside the audit tree', () => {
    expect(tools.readFile('durations/parse.py')).toMatchObject({
      content: expect.stringContaining('def parse_duration'),
    });
    expect(tools.writeFile('notes/check.txt', 'x')).toEqual({written: 'notes/check.txt', bytes: 1});
    expect(tools.writeFile('../escape.txt', 'x')).toMatchObject({error: expect.stringContaining('outside')});
    expect(tools.writeFile('/etc/passwd', 'x')).toMatchObject({error: expect.stringContaining('outside')});
    expect(tools.readFile('../../../../etc/hostname')).toMatchObject({error: expect.stringContaining('outside')});
  });

  it('apply_patch and revert_patch change the work tree; inspect_call_graph traces the tests with the function as the focus', async () => {
    const before = (tools.readFile('durations/parse.py') as {content: string}).content;
    expect(await tools.applyPatch()).toMatchObject({applied: true});
    expect((tools.readFile('durations/parse.py') as {content: string}).content).not.toBe(before);
    expect(tools.revertPatch()).toEqual({reverted: true});
    expect((tools.readFile('durations/parse.py') as {content: string}).content).toBe(before);
    // a later test of the model's that cannot even be imported does not hide the chains of the first
    expect(
      await tools.diffExecution('from durations.nowhere import x\n\n\ndef test_broken():\n    assert x\n'),
    ).toMatchObject({before: {outcome: 'error'}, after: {outcome: 'error'}});
    // the same test run again: traced once, its chain not listed twice
    await tools.diffExecution(TEST);
    const g = await tools.callGraph('parse_duration');
    if ('error' in g) throw new Error(g.error);
    expect(g.distinct_chains).toBe(1);
    expect(g.callers.map(c => c.file)).toContain('tests/test_parse.py');
    // the test diff_execution ran, traced with the function as the focus: its call chain, innermost first
    expect(g.chains.length).toBeGreaterThan(0);
    expect(g.chains[0]!.chain[0]).toMatch(/^parse_duration \(durations\/parse\.py/);
    expect(g.chains[0]!.chain.at(-1)).toMatch(/^test_compound \(test_deltalens_audit_cg1\.py/);
    // a helper below it: the chain goes through the function that really called it
    const h = await tools.callGraph('_tokens');
    if ('error' in h) throw new Error(h.error);
    expect(h.chains[0]!.chain.map(f => f.split(' ')[0])).toEqual(['_tokens', 'parse_duration', 'test_compound']);
    // each caller with the line it made the call from
    expect(h.chains[0]!.chain.slice(0, 2)).toEqual([
      '_tokens (durations/parse.py)',
      'parse_duration (durations/parse.py:17)',
    ]);
    expect(h).toMatchObject({distinct_chains: 1, callers_total: 1});
    // a function no test reaches: only its static callers, and the answer says so
    const f = await tools.callGraph('format_duration');
    if ('error' in f) throw new Error(f.error);
    expect(f.chains).toEqual([]);
    expect(f.how).toMatch(/never reached durations\/format\.py:format_duration/);
    expect(await tools.callGraph('not a name')).toMatchObject({error: expect.any(String)});
    // the tests the call graph traced leave the two trees alike: a later diff_execution's delta is
    // where the patch changes behaviour, as before
    const again = await tools.diffExecution(TEST);
    if ('error' in again) throw new Error(again.error);
    expect(again.delta).toMatchObject({function: 'parse_duration', file: 'durations/parse.py'});
    // the name as a delta point gives it (a nested function's qualified name) is understood
    expect(await tools.callGraph('parse_duration.<locals>.nothing')).toMatchObject({
      chains: [],
      how: expect.stringContaining('no function of that name'),
    });
  }, 60_000);

  it('bash runs in the tree, confined, and a runaway command is cut at its time limit', async () => {
    expect(await tools.bash('ls durations')).toMatchObject({
      outcome: 'passed',
      stdout: expect.stringContaining('parse.py'),
    });
    const t0 = Date.now();
    const r = await tools.bash('while true; do :; done');
    expect(r).toMatchObject({outcome: 'timeout'});
    expect(Date.now() - t0).toBeLessThan(20_000);
    // nothing outside the work tree can be written, not even the project it was copied from
    const outside = join(P, 'repo', 'ESCAPED');
    expect(await tools.bash(`touch ${outside}`)).toMatchObject({outcome: 'failed'});
    expect(existsSync(outside)).toBe(false);
  }, 60_000);
});
