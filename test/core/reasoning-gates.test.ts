import {readdirSync, readFileSync, statSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {PATTERNS, proseOnly} from '../../source/core/reasoning/detect.js';
import {parseMiniSweAgent} from '../../source/core/trajectory/mini-swe-agent.js';
import {parseOpenHands} from '../../source/core/trajectory/openhands.js';
import {parseSweAgent} from '../../source/core/trajectory/swe-agent.js';
import {SAMPLES} from '../helpers/files.js';

/** Every thought of every real run in sample-data/ (mini-SWE-agent, SWE-agent, OpenHands). */
function realThoughts(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(?:traj\.json|traj|json)$/.test(name)) {
        let doc: unknown;
        try {
          doc = JSON.parse(readFileSync(full, 'utf8'));
        } catch {
          continue;
        }
        const parse = full.includes('/swe-agent/')
          ? () => parseSweAgent(doc, 'x', null)
          : full.includes('/openhands/')
            ? () => parseOpenHands(doc, 'x')
            : () => parseMiniSweAgent(doc, 'x');
        try {
          out.push(
            ...parse()
              .steps.map(s => s.thought ?? '')
              .filter(Boolean),
          );
        } catch {
          // not a run of that format (a README's JSON, say)
        }
      }
    }
  };
  walk(SAMPLES);
  return out;
}

describe('the default detector skips a pattern when its words are absent', () => {
  it("every match of a gated pattern, in every real thought of the samples, contains the gate's words (the gate never hides a mark)", () => {
    const thoughts = realThoughts();
    expect(thoughts.length).toBeGreaterThan(400);
    const gated = PATTERNS.filter(p => p.gate);
    expect(gated.length).toBeGreaterThanOrEqual(15);
    let matches = 0;
    for (const t of thoughts) {
      const text = proseOnly(t);
      for (const p of gated) {
        for (const m of text.matchAll(p.re)) {
          matches++;
          expect(p.gate!.test(m[0]), `${p.kind} matched "${m[0]}" without its gate ${p.gate}`).toBe(true);
        }
      }
    }
    expect(matches).toBeGreaterThan(50);
  });

  it('and on written examples of each kind', () => {
    const examples = [
      'count starts at 0',
      '`x` is initially None',
      'self.total is set to 5',
      'sets `flag` to True',
      'foo() calls bar()',
      'it then invokes `handler`',
      'always calls .save()',
      '`cleanup` is called from `teardown`',
      'on the second iteration',
      'the loop exits early',
      'breaks out of the loop',
      'takes the else branch',
      'returns early',
      'the condition is False',
      '`if x` evaluates to True',
      'when the value is None',
      'calling `f(2)` returns 4',
      '`parse(s)` -> 5',
      'the result of `g()` is 3',
      'raises a ValueError',
      'KeyError is raised',
      'this fails because',
      'returns None',
      '(expected 5)',
      'all tests pass',
      'reproduced the issue',
    ];
    for (const e of examples)
      for (const p of PATTERNS.filter(x => x.gate))
        for (const m of e.matchAll(p.re)) expect(p.gate!.test(m[0]), `${p.kind}: ${m[0]}`).toBe(true);
  });
});
