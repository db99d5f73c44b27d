/**
 * The statistics of the reasoning report: Pearson's chi-square test of independence on a 2×2
 * table (DeskCheck RQ2: code reasoning × resolved), and a gold patch's size (the paper's proxy
 * for difficulty). Pure.
 */

/** erfc(x), |relative error| < 1.2e-7 (Numerical Recipes' Chebyshev fit). */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

interface ChiSquare {
  /** Pearson's statistic (no continuity correction), df = 1; null when a margin is 0 */
  chi2: number | null;
  p: number | null;
  /** the smallest expected count; under 5 the test is not trusted */
  minExpected: number | null;
  tooFew: boolean;
}

/**
 * Pearson's chi-square test of independence on [[a, b], [c, d]] (rows: with / without code
 * reasoning; columns: resolved / not). A table with an empty row or column has no test.
 */
export function chiSquare2x2(a: number, b: number, c: number, d: number): ChiSquare {
  const n = a + b + c + d;
  const rows = [a + b, c + d];
  const cols = [a + c, b + d];
  if (!n || rows.includes(0) || cols.includes(0)) return {chi2: null, p: null, minExpected: null, tooFew: true};
  const observed = [a, b, c, d];
  const expected = [
    (rows[0]! * cols[0]!) / n,
    (rows[0]! * cols[1]!) / n,
    (rows[1]! * cols[0]!) / n,
    (rows[1]! * cols[1]!) / n,
  ];
  const chi2 = observed.reduce((s, o, i) => s + (o - expected[i]!) ** 2 / expected[i]!, 0);
  const minExpected = Math.min(...expected);
  // df = 1: P(X > chi2) = erfc(sqrt(chi2 / 2))
  return {chi2, p: erfc(Math.sqrt(chi2 / 2)), minExpected, tooFew: minExpected < 5};
}

interface PatchSize {
  files: number;
  hunks: number;
  /** added + removed lines */
  lines: number;
}

/** The size of a unified diff: files, hunks, and lines added or removed. */
export function patchSize(diff: string): PatchSize {
  let files = 0;
  let hunks = 0;
  let lines = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) files++;
    else if (line.startsWith('@@')) hunks++;
    else if ((line.startsWith('+') && !line.startsWith('+++')) || (line.startsWith('-') && !line.startsWith('---')))
      lines++;
  }
  if (!files) files = (diff.match(/^\+\+\+ /gm) ?? []).length;
  return {files, hunks, lines};
}

/** The difficulty bucket of a gold patch, by its size (one file and at most 5 lines: small). */
export function difficultyOf(size: PatchSize): 'small' | 'medium' | 'large' {
  if (size.files <= 1 && size.lines <= 5) return 'small';
  if (size.files <= 2 && size.lines <= 20) return 'medium';
  return 'large';
}
