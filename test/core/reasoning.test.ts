import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {detectReasoning, proseOnly, type ReasoningMark} from '../../source/core/reasoning/detect.js';
import {chiSquare2x2, difficultyOf, erfc, patchSize} from '../../source/core/reasoning/stats.js';
import {parseMiniSweAgent} from '../../source/core/trajectory/mini-swe-agent.js';
import {SAMPLES} from '../helpers/files.js';

const thoughtOf = (file: string, step: number) =>
  parseMiniSweAgent(JSON.parse(readFileSync(join(SAMPLES, 'mini-swe-agent-multi', file), 'utf8')), 'x').steps[step]!
    .thought;
const kinds = (marks: ReasoningMark[]) => marks.map(m => `${m.family}:${m.kind}:${m.text}`);

describe('the code-reasoning detector on real steps', () => {
  it('a return value stated while simulating the code (E) — and the same words read from a run are an observation', () => {
    const t = thoughtOf('results-context-truncated-4k/astropy__astropy-7336.traj.json', 5);
    expect(kinds(detectReasoning(t))).toEqual(
      expect.arrayContaining(['E:returns-value:__init__ returns None', 'E:result-is:the returned value is None']),
    );
    const marks = detectReasoning(t);
    for (const m of marks) expect(t!.slice(m.span[0], m.span[1])).toBe(m.text);
  });

  it('an exception the agent expects (E raises) and who calls the function (B)', () => {
    const t = thoughtOf('results-baseline-untruncated/astropy__astropy-14309.traj.json', 2);
    expect(kinds(detectReasoning(t))).toEqual([
      'B:backward-call:when identify_format is called',
      'E:raises:raises IndexError',
    ]);
  });

  it('"reproduced the bug" and "verified the fix" are observations, not reasoning', () => {
    const t = thoughtOf('results-context-truncated-4k/django__django-11099.traj.json', 11);
    const marks = detectReasoning(t);
    expect(marks.length).toBeGreaterThan(0);
    expect(marks.every(m => m.family === 'obs')).toBe(true);
    expect(kinds(marks)).toContain('obs:reproduced:reproduced the bug');
  });

  it('variable state (A): a value that stays the same through the code', () => {
    const t = thoughtOf('results-context-truncated-8k/astropy__astropy-7166.traj.json', 11);
    expect(kinds(detectReasoning(t))).toContain('A:state-value:B.foo.__doc__ remains None');
  });
});

describe('what the detector reads', () => {
  const prose = 'I think the parser is wrong here, so let me look closely at how it walks the units.\n';
  it('code fences, pasted numbered listings and the task statement are left out; spans still point into the thought', () => {
    const fence = `${prose}\`\`\`python\nif \`unit\` is None:\n    total = 0\n\`\`\`\nThen \`total\` becomes 1800 after the second unit.`;
    const marks = detectReasoning(fence);
    expect(kinds(marks)).toEqual(['A:state-value:`total` becomes 1800']);
    expect(fence.slice(marks[0]!.span[0], marks[0]!.span[1])).toBe('`total` becomes 1800');
    const listing = `${prose}  20: if \`x\` is None:\n  21:     return \`x\` is None\nNothing else.`;
    expect(detectReasoning(listing)).toEqual([]);
    expect(proseOnly(listing)).toHaveLength(listing.length);
    const task = 'When `parse_duration("1h30m")` is called it returns 1800 instead of 5400 in the current release.';
    expect(detectReasoning(`${prose}${task}\n`, {task})).toEqual([]);
    expect(detectReasoning(`${prose}${task}\n`).length).toBeGreaterThan(0);
  });

  it('each family on written examples, and the branch, loop and condition kinds', () => {
    const t = (s: string) => kinds(detectReasoning(`${prose}${s}`)).map(k => k.split(':').slice(0, 2).join(':'));
    expect(t('On the second iteration the loop exits because `seen` is empty.')).toEqual(
      expect.arrayContaining(['C:iteration', 'C:loop-course', 'A:state-value']),
    );
    expect(t('So it falls through to the else branch and returns early.')).toEqual([
      'D:branch-taken',
      'D:branch-taken',
    ]);
    expect(t('The condition `if not seen` is False for "1h".')).toEqual(['D:condition-value']);
    expect(t('`parse_duration` calls `_tokens` first.')).toEqual(['B:forward-call']);
    expect(t('calling `_split_opt("-x")` returns `("", "-x")`.')).toEqual(['E:returns-value']);
    // the report of the run, and the value read from it: both observations
    expect(t('The output shows `total` is 1800.')).toEqual(['obs:run-output', 'obs:run-output']);
    expect(t('All tests pass now.')).toEqual(['obs:test-outcome']);
  });

  it('a short thought is not read; a 50 MB one is read in bounded time (its first 2 M characters, at most 200 marks)', () => {
    expect(detectReasoning('`x` is None.')).toEqual([]);
    const huge = `${prose}${'`aaa` is '.repeat(5_000_000)}`;
    const t0 = Date.now();
    const marks = detectReasoning(huge);
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(marks.every(m => m.span[1] <= 2_000_000)).toBe(true);
    expect(marks).toHaveLength(200);
    const hostile = `${prose}${'``'.repeat(10_000_000)}${'('.repeat(1_000_000)}`;
    const t1 = Date.now();
    detectReasoning(hostile);
    expect(Date.now() - t1).toBeLessThan(30_000);
  });
});

describe('the statistics of the reasoning report', () => {
  it("Pearson's chi-square on a 2×2 table, computed by hand", () => {
    // n 100, rows 30 / 70, columns 40 / 60 → expected 12, 18, 28, 42;
    // chi2 = 4/12 + 4/18 + 4/28 + 4/42 = 0.793651; p = erfc(sqrt(chi2 / 2)) = erfc(0.629941) = 0.372998
    const r = chiSquare2x2(10, 20, 30, 40);
    expect(r.chi2).toBeCloseTo(0.793651, 5);
    expect(r.p).toBeCloseTo(0.372998, 5);
    expect(r.minExpected).toBeCloseTo(12, 9);
    expect(r.tooFew).toBe(false);
    // DeskCheck's own counts (RQ2, mini / GPT-5.2): 47 of 58 with reasoning resolved, 317 of 442 without
    // (scipy.stats.chi2_contingency(..., correction=False): 2.2467, p 0.1339)
    const g = chiSquare2x2(47, 11, 317, 125);
    expect(g.chi2).toBeCloseTo(2.2467, 3);
    expect(g.p).toBeCloseTo(0.1339, 3);
  });

  it('the degenerate tables: an empty row or column has no test; small expected counts are flagged', () => {
    expect(chiSquare2x2(0, 0, 3, 4)).toEqual({chi2: null, p: null, minExpected: null, tooFew: true});
    expect(chiSquare2x2(5, 0, 7, 0).chi2).toBeNull();
    expect(chiSquare2x2(0, 0, 0, 0).p).toBeNull();
    const small = chiSquare2x2(1, 1, 2, 2);
    expect(small.chi2).toBe(0);
    expect(small.p).toBeCloseTo(1, 6);
    expect(small.tooFew).toBe(true);
    expect(erfc(0)).toBeCloseTo(1, 7);
    expect(erfc(-1)).toBeCloseTo(1.842701, 6);
  });

  it("a gold patch's size and difficulty", () => {
    const diff =
      'diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 2\n y\n@@ -9 +9 @@\n-z\n+w\n';
    expect(patchSize(diff)).toEqual({files: 1, hunks: 2, lines: 4});
    expect(difficultyOf(patchSize(diff))).toBe('small');
    expect(difficultyOf({files: 3, hunks: 3, lines: 10})).toBe('large');
  });
});
