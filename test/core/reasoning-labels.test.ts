import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {detectReasoning} from '../../source/core/reasoning/detect.js';
import {deskcheckTurn} from '../../source/core/reasoning/deskcheck.js';
import {assistantText} from '../../source/services/reasoning.js';
import {scoreDetector, type LabelledStep} from '../../source/core/reasoning/evaluate.js';
import {parseMiniSweAgent} from '../../source/core/trajectory/mini-swe-agent.js';
import {parseOpenHands} from '../../source/core/trajectory/openhands.js';
import {parseSweAgent} from '../../source/core/trajectory/swe-agent.js';
import {ROOT, SAMPLES} from '../helpers/files.js';

const fixture = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'reasoning-labels.json'), 'utf8')) as {
  steps: (LabelledStep & {file: string; step: number})[];
};

function stepsOf(file: string) {
  const doc = JSON.parse(readFileSync(join(SAMPLES, file), 'utf8'));
  const t = file.startsWith('swe-agent/')
    ? parseSweAgent(doc, 'x', null)
    : file.startsWith('openhands/')
      ? parseOpenHands(doc, 'x')
      : parseMiniSweAgent(doc, 'x');
  return t.steps;
}

describe('the default detector against the hand-labelled real steps (test/fixtures/reasoning-labels.json)', () => {
  const cache = new Map<string, ReturnType<typeof stepsOf>>();
  const step = (s: {file: string; step: number}) => {
    if (!cache.has(s.file)) cache.set(s.file, stepsOf(s.file));
    return cache.get(s.file)![s.step]!;
  };
  const scored = fixture.steps.map(s => ({
    label: s,
    found: [...new Set(detectReasoning(step(s).thought).map(m => m.family))],
  }));
  // the artifact's scan, on the assistant's turn as it wrote it
  const desk = fixture.steps.map(s => {
    const x = step(s);
    return {
      label: s,
      found: [
        ...new Set(
          (deskcheckTurn(assistantText({thought: x.thought, action: x.actionText, tool: x.tool}))?.marks ?? []).map(
            m => m.family,
          ),
        ),
      ],
    };
  });
  // the first half was read while improving the detector (development); the second was not
  const half = Math.floor(scored.length / 2);
  const table = (xs: typeof scored) =>
    Object.fromEntries(Object.entries(scoreDetector(xs)).map(([f, x]) => [f, [x.tp, x.fp, x.fn]]));

  it('covers at least 150 steps, with positives of four families and negatives', () => {
    expect(fixture.steps.length).toBeGreaterThanOrEqual(150);
    expect(fixture.steps.filter(s => !s.families && !s.observation).length).toBeGreaterThan(50);
    for (const f of ['A', 'B', 'D', 'E']) expect(fixture.steps.some(s => s.families.includes(f))).toBe(true);
  });

  it('precision and recall per family on the held-out half and the development half, as docs/reasoning.md reports them', () => {
    expect({heldOut: table(scored.slice(half)), development: table(scored.slice(0, half))}).toEqual(PINNED);
  });

  it('the deskcheck detector on the same steps (its families marked in a qualifying turn)', () => {
    expect({heldOut: table(desk.slice(half)), development: table(desk.slice(0, half))}).toEqual(PINNED_DESKCHECK);
  });
});

// tp, fp, fn per family — docs/reasoning.md's table comes from these; a detector change updates both
const PINNED = {
  heldOut: {A: [2, 0, 4], B: [1, 2, 2], C: [0, 0, 0], D: [2, 2, 3], E: [6, 2, 8], obs: [19, 0, 20]},
  development: {A: [2, 1, 1], B: [4, 3, 5], C: [0, 0, 0], D: [4, 5, 5], E: [15, 2, 3], obs: [23, 0, 10]},
};

const PINNED_DESKCHECK = {
  heldOut: {A: [2, 1, 4], B: [0, 0, 3], C: [0, 1, 0], D: [0, 0, 5], E: [5, 5, 9], obs: [2, 1, 37]},
  development: {A: [1, 5, 2], B: [0, 0, 9], C: [0, 0, 0], D: [0, 0, 9], E: [11, 4, 7], obs: [2, 0, 31]},
};
