import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {beforeAll, describe, expect, it} from 'vitest';
import {claimOf, valueMatches} from '../../source/core/reasoning/claims.js';
import {checkClaims} from '../../source/services/claims.js';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {tracePair} from '../../source/services/tracing.js';
import type {Db} from '../../source/store/db.js';
import {reasoningOf} from '../../source/store/reasoning.js';
import {getSteps, listTrajectories} from '../../source/store/trajectories.js';
import {parseListFilter} from '../../source/core/trajectory/list-filter.js';
import {stepLines} from '../../source/ui/screens/trajectory/view.js';
import {freshDb, importInto} from '../helpers/db.js';
import {renderApp} from '../helpers/ui.js';
import {storeData} from '../../source/ui/data/index.js';
import {trajectoryScreen} from '../../source/ui/screens/trajectory/keys.js';
import {tempDir} from '../helpers/files.js';

const P = join(PROJECTS_DIR, 'durations');

/** A scripted mini-SWE-agent run on the durations bug whose thoughts make claims. */
function scriptedRun(dir: string, thoughts: string[], actions: string[] = []): string {
  const messages: {role: string; content: string}[] = [
    {role: 'system', content: 'scripted'},
    {role: 'user', content: 'fix parse_duration'},
  ];
  thoughts.forEach((t, i) =>
    messages.push(
      {role: 'assistant', content: `THOUGHT: ${t}\n\n\`\`\`bash\n${actions[i] ?? 'cat durations/parse.py'}\n\`\`\``},
      {role: 'user', content: '<returncode>0</returncode><output>…</output>'},
    ),
  );
  const file = join(dir, 'demo__durations-1.traj.json');
  writeFileSync(
    file,
    JSON.stringify({
      instance_id: 'demo__durations-1',
      trajectory_format: 'mini-swe-agent-1',
      info: {exit_status: 'Submitted', submission: ''},
      messages,
    }),
  );
  return file;
}

let db: Db;
let run: number;
beforeAll(async () => {
  db = freshDb().db;
  // the buggy and fixed programs traced with values at every step
  await tracePair(
    db,
    {kind: 'patch', repo: join(P, 'repo'), patch: join(P, 'patches', 'gold.diff'), copy: true},
    {
      python: process.env.DELTALENS_PYTHON ?? 'python3',
      test: 'tests/test_parse.py::test_compound_duration',
      instance: 'demo__durations-1',
      label: 'gold',
      sandbox: 'prefer',
      values: 'all',
      pytestPlugins: false,
    },
  );
  const dir = tempDir();
  importInto(
    db,
    [
      scriptedRun(dir, [
        // right: on "1h30m" the second unit overwrites total with 30 * 60
        'Simulating parse_duration on "1h30m": the first unit gives 3600, then on the second unit `total` becomes 1800 because the assignment overwrites it.',
        // wrong: total never holds 7200
        'Tracing it again more carefully, after the loop `total` becomes 7200 for this compound input.',
        // no such name in the program: nothing to check it against
        'I suspect the cache matters here, and `unit_cache` is None at that point in the call.',
      ]),
    ],
    {agent: 'scripted-claims'},
  );
  run = listTrajectories(db, {agent: 'scripted-claims'})[0]!.id;
}, 120_000);

describe('claims in code reasoning, checked against the real execution', () => {
  it('a right claim is confirmed, a wrong one contradicted, one about a name the program never has unverifiable — each with its evidence', () => {
    const r = checkClaims(db, run);
    const by = (text: string) => r.checks.find(c => c.text === text)!;
    expect(by('total = 1800')).toMatchObject({
      verdict: 'confirmed',
      evidence: {side: 'buggy', function: 'parse_duration', file: 'durations/parse.py', recorded: '1800'},
    });
    expect(by('total = 7200')).toMatchObject({verdict: 'contradicted', reason: expect.stringContaining('3600')});
    expect(by('total = 7200').others!.map(o => o.recorded)).toEqual(expect.arrayContaining(['0', '3600', '1800']));
    expect(by('unit_cache = None')).toMatchObject({verdict: 'unverifiable', evidence: null});
    // stored with the mark
    const stored = reasoningOf(db, run).filter(m => m.claim);
    expect(stored.map(m => (m.claim as {verdict: string}).verdict).sort()).toEqual([
      'confirmed',
      'contradicted',
      'unverifiable',
    ]);
    // the explorer list's claim:contradicted and reasoning:yes conditions find the run
    expect(listTrajectories(db, parseListFilter('claim:contradicted')).map(t => t.id)).toEqual([run]);
    expect(listTrajectories(db, parseListFilter('reasoning:no agent:scripted-claims'))).toEqual([]);
    // the step screen shows the verdict under its mark
    const text = stepLines(
      getSteps(db, run)[1]!,
      200,
      reasoningOf(db, run).filter(m => m.step === 1),
    )
      .map(l => l.text)
      .join('\n');
    expect(text).toContain('claim total = 7200: CONTRADICTED');
  });

  it('J on the step opens the stepper at the trace step the verdict rests on', async () => {
    checkClaims(db, run);
    const app = renderApp({
      data: storeData(db, 'test.db'),
      initial: {stack: [trajectoryScreen(run), {kind: 'step', id: run, idx: 0, scroll: 0}]},
    });
    let frame = await app.ready();
    // the whole step fits: its claim says where its evidence is
    expect(frame).toContain('J opens it in the stepper');
    frame = await app.press('J');
    frame = await app.until('Trace stepper');
    expect(frame).toContain('claim total = 1800: the buggy s');
    // the row shown is parse_duration's line 21, where total was recorded as 1800
    expect(frame).toContain('parse_duration durations/parse.py:21');
    expect(frame).toContain('total = 1800');
    app.unmount();
  });

  it('after the run edits the source, claims need a trace of its own patch: without one they are unverifiable, never checked against the buggy program', () => {
    const dir = tempDir();
    const same = 'On the second unit of "1h30m" `total` becomes 1800 because the assignment overwrites it.';
    importInto(
      db,
      [
        scriptedRun(
          dir,
          [
            same,
            'I will change the assignment into an accumulation now.',
            `Checking my change by hand once more: ${same}`,
          ],
          [
            'cat durations/parse.py',
            "sed -i 's/total = amount/total += amount/' durations/parse.py",
            'cat durations/parse.py',
          ],
        ),
      ],
      {agent: 'scripted-after-edit'},
    );
    const id = listTrajectories(db, {agent: 'scripted-after-edit'})[0]!.id;
    const r = checkClaims(db, id);
    // before the edit: the buggy program says so; after it: the run's own program was never traced
    expect(r.checks.map(c => [c.step, c.verdict])).toEqual([
      [0, 'confirmed'],
      [2, 'unverifiable'],
    ]);
    expect(r.checks[1]!.reason).toContain("the run's patch was never traced");
  });

  it('claims read from marks, and values compared as the tracer records them', () => {
    expect(claimOf({family: 'A', kind: 'state-value', text: '`total` becomes 1800'})).toEqual({
      kind: 'value',
      name: 'total',
      value: '1800',
    });
    expect(
      claimOf({family: 'E', kind: 'returns-value', text: 'calling `_split_opt("-x")` returns `("", "-x")`'}),
    ).toEqual({kind: 'return', function: '_split_opt', value: '("", "-x")'});
    expect(claimOf({family: 'E', kind: 'raises', text: 'raises IndexError'})).toEqual({
      kind: 'raises',
      exception: 'IndexError',
      function: null,
    });
    expect(claimOf({family: 'B', kind: 'forward-call', text: '`a` calls `b`'})).toBeNull();
    expect(valueMatches('("", "-x")', {$tuple: ['', '-x']})).toBe(true);
    expect(valueMatches('1800', 1800.0)).toBe(true);
    expect(valueMatches('None', null)).toBe(true);
    expect(valueMatches('an empty list', [])).toBe(true);
    expect(valueMatches('1800', '1800')).toBe(false);
    expect(valueMatches('7200', 1800)).toBe(false);
  });
});
