import {describe, expect, it} from 'vitest';
import {mmr, pickCorrect, seededOrder, similarity} from '../../source/core/questions/select.js';
import {codePointDistance} from '../../source/services/questions/distance.js';

const d = codePointDistance;

describe('choosing options (ExplainBench Eq. 2 and Eq. 3)', () => {
  it('similarity is 1 − Levenshtein / the longer length, over code points', () => {
    expect(similarity('abc', 'abd', d)).toBeCloseTo(2 / 3, 10);
    expect(similarity('', '', d)).toBe(1);
    expect(similarity('total', 'amount', d)).toBeCloseTo(1 / 6, 10);
    // an emoji is one code point (two UTF-16 units): one substitution and one insertion
    expect(d('x', '😀y')).toBe(2);
    expect(similarity('x', '😀y', d)).toBe(0);
  });

  it('Eq. 2: the changed candidate closest on average to the unchanged ones is the key; a tie goes to the first', () => {
    const first = pickCorrect(['xyz', 'abc'], ['abd', 'abe'], d)!;
    expect(first.index).toBe(1);
    expect(first.scores[0]).toBe(0);
    expect(first.scores[1]).toBeCloseTo(2 / 3, 10);
    // total and seen are both 1/12 from {unit, amount} (sim 0 and 1/6 each): the first wins
    const tie = pickCorrect(['total', 'seen'], ['unit', 'amount'], d)!;
    expect(tie.index).toBe(0);
    expect(tie.scores[0]).toBeCloseTo(1 / 12, 10);
    expect(tie.scores[1]).toBeCloseTo(1 / 12, 10);
    expect(pickCorrect([], ['a'], d)).toBeNull();
    expect(pickCorrect(['a', 'b'], [], d)).toEqual({index: 0, scores: [0, 0]});
  });

  it('Eq. 3 (MMR, λ = 0.7): relevance to the key minus redundancy with what is picked; ties to the first', () => {
    // abd and abx are both 2/3 like "abc": 0.7 × 2/3 each, abd first; then abx pays 0.3 × its
    // 2/3 likeness to abd (0.2667) but still beats xyz, which shares no letter with any (0)
    const r = mmr('abc', ['abd', 'abx', 'xyz'], 3, d);
    expect(r.picked).toEqual([0, 1, 2]);
    expect(r.scores[0]).toBeCloseTo(0.7 * (2 / 3), 10);
    expect(r.scores[1]).toBeCloseTo(0.7 * (2 / 3) - 0.3 * (2 / 3), 10);
    expect(r.scores[2]).toBe(0);
    // diversity: a near-copy of a picked distractor drops behind a different one
    const r2 = mmr('5400', ['5401', '5402', '2700'], 2, d, 0.5);
    expect(r2.picked).toEqual([0, 2]);
    expect(mmr('a', ['b'], 3, d).picked).toEqual([0]);
  });

  it('a seeded order is the same on every run and a permutation of its items', () => {
    const items = ['a', 'b', 'c', 'd', 'e'];
    expect(seededOrder(items, 7)).toEqual(seededOrder(items, 7));
    expect([...seededOrder(items, 7)].sort()).toEqual(items);
    expect(items.map((_, s) => seededOrder(items, s).join('')).some(o => o !== 'abcde')).toBe(true);
  });
});
