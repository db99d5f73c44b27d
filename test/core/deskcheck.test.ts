import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {deskcheckClean, deskcheckRun, deskcheckTurn} from '../../source/core/reasoning/deskcheck.js';
import {parseMiniSweAgent} from '../../source/core/trajectory/mini-swe-agent.js';
import {assistantText} from '../../source/services/reasoning.js';
import {ROOT, SAMPLES} from '../helpers/files.js';

interface Decided {
  qualifying_turns: {
    message_index: number;
    step: number;
    labels: string[];
    kinds: Record<string, string[]>;
    flags: string[];
  }[];
  has_code_reasoning: boolean;
  n_reasoning_snippets: number;
  n_core_reasoning_snippets: number;
}
const fixture = JSON.parse(
  readFileSync(join(ROOT, 'test', 'fixtures', 'deskcheck-artifact-decisions.json'), 'utf8'),
) as {files: Record<string, Decided>};
const files = Object.entries(fixture.files);

describe('--detector deskcheck decides as the DeskCheck artifact does (its decisions on the sample runs, test/fixtures/deskcheck-artifact-decisions.json)', () => {
  it("every qualifying turn, its code-token labels, its families' kinds and flags, and every run's decision — from the assistant messages as the artifact reads them", () => {
    expect(files.length).toBe(25);
    let turns = 0;
    for (const [file, want] of files) {
      const doc = JSON.parse(readFileSync(join(SAMPLES, file), 'utf8')) as {
        messages: {role: string; content: unknown}[];
      };
      const got: Decided['qualifying_turns'] = [];
      const all = doc.messages.map((m, i) => {
        if (m.role !== 'assistant' || typeof m.content !== 'string' || !m.content.trim()) return null;
        const t = deskcheckTurn(m.content.trim());
        if (t)
          got.push({
            message_index: i,
            step: want.qualifying_turns.find(q => q.message_index === i)?.step ?? -1,
            labels: t.labels,
            kinds: t.kinds,
            flags: t.flags,
          });
        return t;
      });
      expect(got, file).toEqual(want.qualifying_turns);
      const run = deskcheckRun(all);
      expect({has: run.hasCodeReasoning, any: run.reasoningSnippets, core: run.coreSnippets}, file).toEqual({
        has: want.has_code_reasoning,
        any: want.n_reasoning_snippets,
        core: want.n_core_reasoning_snippets,
      });
      turns += got.length;
    }
    expect(turns).toBe(251);
    // runs on both sides of the decision
    expect(files.filter(([, f]) => f.has_code_reasoning).length).toBe(14);
  });

  it('the same decisions from the steps deltalens stores (thought and action, rebuilt as the assistant wrote them)', () => {
    for (const [file, want] of files) {
      const t = parseMiniSweAgent(JSON.parse(readFileSync(join(SAMPLES, file), 'utf8')), 'x');
      const turns = t.steps.map(s =>
        deskcheckTurn(assistantText({thought: s.thought, action: s.actionText, tool: s.tool})),
      );
      expect(
        turns.flatMap((x, i) => (x ? [{step: i, flags: x.flags}] : [])),
        file,
      ).toEqual(want.qualifying_turns.map(q => ({step: q.step, flags: q.flags})));
      expect(deskcheckRun(turns).hasCodeReasoning, file).toBe(want.has_code_reasoning);
    }
  });

  it('cleans as the artifact does — fences and pr_description become a newline, two or more numbered lines go — and maps back into the thought', () => {
    const thought = 'Look at this:\n```python\nx = 1\n```\n  12: a = 1\n  13: b = 2\nso `total` is None here.';
    const c = deskcheckClean(thought);
    expect(c.text).toBe('Look at this:\n\n\nso `total` is None here.');
    const at = c.text.indexOf('`total`');
    expect(thought.slice(c.map[at], c.map[at]! + 7)).toBe('`total`');
    // a thought under 50 characters, or over 500,000, is not read
    expect(deskcheckTurn('`x` is None')).toBeNull();
    expect(deskcheckTurn(`${'the `x` is None. '.repeat(30_000)}`)).toBeNull();
  });
});
