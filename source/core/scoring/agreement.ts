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
    if (r === undefined || c === undefined)
      throw new RangeError(`label "${r === undefined ? x : b[i]}" is not one of ${cats.join(', ')}`);
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

interface FleissResult {
  /** items used: those rated by exactly `raters` people */
  n: number;
  raters: number;
  /** items left out because they had a different number of ratings */
  left_out: number;
  /** mean per-item agreement P̄ */
  raw: number | null;
  fleiss_kappa: number | null;
  categories: string[];
}

/**
 * Fleiss' κ for m raters per item: κ = (P̄ − P̄e) / (1 − P̄e), P̄ the mean over items of
 * Σ n_ij(n_ij − 1) / (m(m − 1)) and P̄e = Σ p_j² with p_j the share of all ratings in category j.
 * Items need the same number of raters: the most common count ≥ 2 is used, the other items are
 * left out and counted. κ is 1 when every rating falls in one category (P̄e = 1, full agreement).
 */
export function fleissKappa(items: string[][]): FleissResult {
  const counts = new Map<number, number>();
  for (const it of items) if (it.length >= 2) counts.set(it.length, (counts.get(it.length) ?? 0) + 1);
  const m = [...counts].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]?.[0] ?? 0;
  const used = items.filter(it => it.length === m && m >= 2);
  const categories = [...new Set(used.flat())].sort();
  const result = {n: used.length, raters: m, left_out: items.length - used.length, categories};
  if (!used.length) return {...result, raw: null, fleiss_kappa: null};
  const totals = new Map<string, number>();
  let pBar = 0;
  for (const it of used) {
    const c = new Map<string, number>();
    for (const x of it) c.set(x, (c.get(x) ?? 0) + 1);
    let agree = 0;
    for (const [cat, k] of c) {
      agree += k * (k - 1);
      totals.set(cat, (totals.get(cat) ?? 0) + k);
    }
    pBar += agree / (m * (m - 1));
  }
  pBar /= used.length;
  const all = used.length * m;
  const pe = [...totals.values()].reduce((sum, k) => sum + (k / all) ** 2, 0);
  const kappa = pe >= 1 - 1e-12 ? (pBar >= 1 - 1e-12 ? 1 : null) : (pBar - pe) / (1 - pe);
  return {...result, raw: round4(pBar), fleiss_kappa: kappa === null ? null : round4(kappa)};
}
