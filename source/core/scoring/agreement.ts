/**
 * Agreement between raters (pure): raw agreement and Cohen's κ for two raters, with the
 * confusion table.
 */

export interface CohenResult {
  n: number;
  raw: number | null;
  /** null when undefined: no items, or chance agreement is 1 while the raters disagree */
  cohen_kappa: number | null;
  categories: string[];
  /** confusion[i][j]: items rater A put in categories[i] and rater B in categories[j] */
  confusion: number[][];
}

/**
 * Cohen's κ = (p_o − p_e) / (1 − p_e), p_o the observed agreement and p_e the agreement expected
 * from each rater's category shares. When p_e = 1 (both raters used one and the same category)
 * κ is 1 if they agree on every item (they do, then) — by convention; otherwise undefined.
 */
export function cohenKappa(a: string[], b: string[], categories?: string[]): CohenResult {
  if (a.length !== b.length) throw new RangeError(`two raters need the same items (${a.length} vs ${b.length} labels)`);
  const cats = categories ?? [...new Set([...a, ...b])].sort();
  const index = new Map(cats.map((c, i) => [c, i]));
  const confusion = cats.map(() => cats.map(() => 0));
  a.forEach((x, i) => {
    const r = index.get(x);
    const c = index.get(b[i]!);
    if (r === undefined || c === undefined) throw new RangeError(`label "${r === undefined ? x : b[i]}" is not one of ${cats.join(', ')}`);
    confusion[r]![c]! += 1;
  });
  const n = a.length;
  if (!n) return {n, raw: null, cohen_kappa: null, categories: cats, confusion};
  const po = cats.reduce((sum, _, i) => sum + confusion[i]![i]!, 0) / n;
  const pe = cats.reduce((sum, _, i) => {
    const rowShare = confusion[i]!.reduce((x, y) => x + y, 0) / n;
    const colShare = confusion.reduce((x, row) => x + row[i]!, 0) / n;
    return sum + rowShare * colShare;
  }, 0);
  const kappa = pe >= 1 - 1e-12 ? (po >= 1 - 1e-12 ? 1 : null) : (po - pe) / (1 - pe);
  return {n, raw: round4(po), cohen_kappa: kappa === null ? null : round4(kappa), categories: cats, confusion};
}

const round4 = (x: number) => Math.round(x * 10000) / 10000;
