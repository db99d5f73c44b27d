import {describe, expect, it} from 'vitest';
import {
  autoFlags,
  buildQueue,
  isDisagreement,
  itemKey,
  majority,
  parseQueue,
  stratifiedSample,
  type AnnotationItem,
  type ItemLabels,
} from '../../source/core/questions/annotation.js';
import {cohenKappa, fleissKappa} from '../../source/core/scoring/agreement.js';

describe("Fleiss' κ", () => {
  it('reproduces the worked example (10 subjects, 14 raters, 5 categories: κ = 0.210)', () => {
    // Fleiss (1971) as tabulated on Wikipedia's "Fleiss' kappa": counts per category per subject
    const table = [
      [0, 0, 0, 0, 14],
      [0, 2, 6, 4, 2],
      [0, 0, 3, 5, 6],
      [0, 3, 9, 2, 0],
      [2, 2, 8, 1, 1],
      [7, 7, 0, 0, 0],
      [3, 2, 6, 3, 0],
      [2, 5, 3, 2, 2],
      [6, 5, 2, 1, 0],
      [0, 2, 2, 3, 7],
    ];
    const items = table.map(row => row.flatMap((n, j) => Array.from({length: n}, () => String(j + 1))));
    const r = fleissKappa(items);
    expect(r).toMatchObject({n: 10, raters: 14, left_out: 0});
    expect(r.raw).toBeCloseTo(0.378, 3); // P̄
    expect(r.fleiss_kappa).toBeCloseTo(0.21, 2);
  });

  it('perfect agreement is 1, one category is 1, and items with another number of raters are left out', () => {
    expect(
      fleissKappa([
        ['A', 'A', 'A'],
        ['B', 'B', 'B'],
      ]).fleiss_kappa,
    ).toBe(1);
    expect(
      fleissKappa([
        ['A', 'A'],
        ['A', 'A'],
      ]).fleiss_kappa,
    ).toBe(1);
    const r = fleissKappa([
      ['A', 'B'],
      ['A', 'A'],
      ['B', 'B'],
      ['A', 'B', 'A'],
    ]);
    expect(r).toMatchObject({n: 3, raters: 2, left_out: 1});
    expect(fleissKappa([]).fleiss_kappa).toBeNull();
  });

  it('two raters: Fleiss and Cohen differ only by how chance is estimated', () => {
    const a = ['A', 'A', 'B', 'B', 'A'];
    const b = ['A', 'B', 'B', 'B', 'A'];
    expect(cohenKappa(a, b).raw).toBe(0.8);
    expect(fleissKappa(a.map((x, i) => [x, b[i]!])).raw).toBe(0.8);
  });
});

describe('annotation queues', () => {
  const items: AnnotationItem[] = [
    ...['q1', 'q2', 'q3', 'q4', 'q5', 'q6'].map((q, i) => ({
      question: q,
      explanation: 1,
      type: 'e2e_intent' as const,
      instance: `i${i}`,
      agent: 'a',
    })),
    ...['r1', 'r2'].map((q, i) => ({
      question: q,
      explanation: 1,
      type: 'local_effect' as const,
      instance: `j${i}`,
      agent: 'a',
    })),
    ...['s1', 's2', 's3', 's4'].map((q, i) => ({
      question: q,
      explanation: 2,
      type: 'e2e_effect' as const,
      instance: `k${i}`,
      agent: 'b',
    })),
  ];
  const none = new Map<string, ItemLabels>();

  it('the same seed gives the same order; another seed another order', () => {
    const a = buildQueue(items, none, {kind: 'all'}, 'ann', 7).map(i => i.question);
    expect(buildQueue(items, none, {kind: 'all'}, 'bo', 7).map(i => i.question)).toEqual(a);
    expect(buildQueue(items, none, {kind: 'all'}, 'ann', 8).map(i => i.question)).not.toEqual(a);
    expect([...a].sort()).toEqual(items.map(i => i.question).sort());
  });

  it('sample:N is stratified over question types and reproducible', () => {
    const s = stratifiedSample(items, 6, 3);
    const count = (t: string) => s.filter(i => i.type === t).length;
    // 12 items: 6 e2e_intent, 4 e2e_effect, 2 local_effect → 3, 2, 1 of 6
    expect([count('e2e_intent'), count('e2e_effect'), count('local_effect')]).toEqual([3, 2, 1]);
    expect(stratifiedSample(items, 6, 3)).toEqual(s);
    expect(parseQueue('sample:6')).toEqual({kind: 'sample', n: 6});
    expect(parseQueue('sample:0')).toBeNull();
    expect(parseQueue('everything')).toBeNull();
  });

  it('leaves out what this annotator labelled; unlabelled and disagreements pick their items', () => {
    const labels = new Map<string, ItemLabels>([
      [itemKey(items[0]!), {human: [{annotator: 'ann', label: 'A'}], modelMajority: 'A'}],
      [
        itemKey(items[1]!),
        {
          human: [
            {annotator: 'bo', label: 'A'},
            {annotator: 'cy', label: 'B'},
          ],
          modelMajority: 'A',
        },
      ],
      [itemKey(items[2]!), {human: [{annotator: 'bo', label: 'C'}], modelMajority: 'A'}],
      [itemKey(items[3]!), {human: [], modelMajority: 'A'}],
    ]);
    const all = buildQueue(items, labels, {kind: 'all'}, 'ann', 1).map(i => i.question);
    expect(all).not.toContain('q1');
    expect(all).toHaveLength(items.length - 1);
    expect(
      buildQueue(items, labels, {kind: 'unlabelled'}, 'ann', 1)
        .map(i => i.question)
        .sort(),
    ).toEqual(
      items
        .slice(3)
        .map(i => i.question)
        .sort(),
    );
    expect(
      buildQueue(items, labels, {kind: 'disagreements'}, 'ann', 1)
        .map(i => i.question)
        .sort(),
    ).toEqual(['q2', 'q3']);
    expect(isDisagreement({human: [{annotator: 'x', label: 'A'}], modelMajority: null})).toBe(false);
    expect(majority(['A', 'B', 'A'])).toBe('A');
    expect(majority(['A', 'B'])).toBeNull();
  });
});

describe('automatic question flags', () => {
  it('names blank answers, lexical everywhere, and a model every person contradicts — and nothing on a clean question', () => {
    const flags = autoFlags({
      question: 'q',
      blank: [{model: 'gpt', correct: true}],
      lexical: [
        {explanation: 1, correct: true},
        {explanation: 2, correct: true},
      ],
      items: [{explanation: 1, model: 'gpt', samples: ['B', 'B'], human: ['A', 'A']}],
    });
    expect(flags.map(f => f.reason)).toEqual(['blank-answers', 'lexical-everywhere', 'model-vs-humans']);
    expect(flags[2]!.evidence).toContain('gpt said B, people said A');
    expect(
      autoFlags({
        question: 'q',
        blank: [{model: 'gpt', correct: false}],
        lexical: [
          {explanation: 1, correct: true},
          {explanation: 2, correct: false},
        ],
        items: [{explanation: 1, model: 'gpt', samples: ['A', 'B'], human: ['A']}],
      }),
    ).toEqual([]);
  });
});
