import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {detectReasoning} from '../../source/core/reasoning/detect.js';
import {scoreDetector, type LabelledStep} from '../../source/core/reasoning/evaluate.js';
import {parseMiniSweAgent} from '../../source/core/trajectory/mini-swe-agent.js';
import {parseOpenHands} from '../../source/core/trajectory/openhands.js';
import {parseSweAgent} from '../../source/core/trajectory/swe-agent.js';
import {ROOT, SAMPLES} from '../helpers/files.js';

const fixture = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'reasoning-labels.json'), 'utf8')) as {steps: (LabelledStep & {file: string; step: number})[]};

function thoughts(file: string) {
  const doc = JSON.parse(readFileSync(join(SAMPLES, file), 'utf8'));
  const t = file.startsWith('swe-agent/') ? parseSweAgent(doc, 'x', null) : file.startsWith('openhands/') ? parseOpenHands(doc, 'x') : parseMiniSweAgent(doc, 'x');
  return t.steps.map(s => s.thought);
}

describe('the default detector against the hand-labelled real steps (test/fixtures/reasoning-labels.json)', () => {
  const cache = new Map<string, (string | null)[]>();
  const scored = fixture.steps.map(s => {
    if (!cache.has(s.file)) cache.set(s.file, thoughts(s.file));
    const found = [...new Set(detectReasoning(cache.get(s.file)![s.step]!).map(m => m.family))];
    return {label: s, found};
  });
  // the first half was read while improving the detector (development); the second was not
  const half = Math.floor(scored.length / 2);
  const table = (xs: typeof scored) => Object.fromEntries(Object.entries(scoreDetector(xs)).map(([f, x]) => [f, [x.tp, x.fp, x.fn]]));

  it('covers at least 150 steps, with positives of four families and negatives', () => {
    expect(fixture.steps.length).toBeGreaterThanOrEqual(150);
    expect(fixture.steps.filter(s => !s.families && !s.observation).length).toBeGreaterThan(50);
    for (const f of ['A', 'B', 'D', 'E']) expect(fixture.steps.some(s => s.families.includes(f))).toBe(true);
  });

  it('precision and recall per family on the held-out half and the development half, as readme.md reports them', () => {
    expect({heldOut: table(scored.slice(half)), development: table(scored.slice(0, half))}).toEqual(PINNED);
  });
});

// tp, fp, fn per family — readme.md's table comes from these; a detector change updates both
const PINNED = {
  heldOut: {A: [2, 0, 4], B: [1, 2, 2], C: [0, 0, 0], D: [2, 2, 3], E: [6, 2, 8], obs: [19, 0, 20]},
  development: {A: [2, 1, 1], B: [4, 3, 5], C: [0, 0, 0], D: [4, 5, 5], E: [15, 2, 3], obs: [23, 0, 10]},
};
