import {rng} from './prompt.js';

/**
 * Choosing options among validated candidates (ExplainBench §5.3, Eq. 2 and Eq. 3), with the
 * distance passed in (the service uses fastest-levenshtein), so this stays pure.
 *
 * sim(a, b) = 1 − lev(a, b) / max(|a|, |b|, 1), over code points of the raw strings.
 * Correct option (Eq. 2): the changed candidate with the highest mean sim to the unchanged
 * candidates (the most "plausible-looking" of the changed ones); with no unchanged candidate
 * every mean is 0. Distractors (Eq. 3, MMR, λ = 0.7): picked one at a time, each maximising
 * λ·sim(c, correct) − (1 − λ)·max sim(c, already picked), the max over none being 0.
 * Ties go to the candidate that came first — never to chance.
 */
export type Distance = (a: string, b: string) => number;

export const MMR_LAMBDA = 0.7;

export function similarity(a: string, b: string, distance: Distance): number {
  const len = Math.max([...a].length, [...b].length, 1);
  return 1 - distance(a, b) / len;
}

interface CorrectPick {
  /** index into `changed` */
  index: number;
  /** mean sim of each changed candidate to the unchanged ones */
  scores: number[];
}

export function pickCorrect(changed: string[], unchanged: string[], distance: Distance): CorrectPick | null {
  if (!changed.length) return null;
  const scores = changed.map(c =>
    unchanged.length ? unchanged.reduce((s, u) => s + similarity(c, u, distance), 0) / unchanged.length : 0,
  );
  let index = 0;
  scores.forEach((s, i) => {
    if (s > scores[index]!) index = i;
  });
  return {index, scores};
}

interface MmrPick {
  /** indexes into `pool`, in the order picked */
  picked: number[];
  /** the MMR score each pick had when it was picked */
  scores: number[];
}

export function mmr(correct: string, pool: string[], k: number, distance: Distance, lambda = MMR_LAMBDA): MmrPick {
  const toCorrect = pool.map(c => similarity(c, correct, distance));
  const picked: number[] = [];
  const scores: number[] = [];
  while (picked.length < Math.min(k, pool.length)) {
    let best = -1;
    let bestScore = -Infinity;
    pool.forEach((c, i) => {
      if (picked.includes(i)) return;
      const redundancy = picked.length ? Math.max(...picked.map(j => similarity(c, pool[j]!, distance))) : 0;
      const score = lambda * toCorrect[i]! - (1 - lambda) * redundancy;
      if (score > bestScore) [best, bestScore] = [i, score];
    });
    picked.push(best);
    scores.push(bestScore);
  }
  return {picked, scores};
}

/** A seeded shuffle: the same seed gives the same order, on every machine. */
export function seededOrder<T>(items: T[], seed: number): T[] {
  const next = rng(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
