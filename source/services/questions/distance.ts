import {distance as levenshtein} from 'fastest-levenshtein';
import type {Distance} from '../../core/questions/select.js';

/** Levenshtein over code points: astral characters count once. */
export const codePointDistance: Distance = (a, b) => {
  if (!/[\uD800-\uDFFF]/.test(a + b)) return levenshtein(a, b);
  const map = new Map<number, string>();
  let next = 0xe000;
  const conv = (s: string) =>
    [...s]
      .map(ch => {
        const cp = ch.codePointAt(0)!;
        if (cp <= 0xffff) return ch;
        if (!map.has(cp)) map.set(cp, String.fromCharCode(next++));
        return map.get(cp)!;
      })
      .join('');
  return levenshtein(conv(a), conv(b));
};
