/**
 * Numbers a trajectory file states about itself (tokens, cost) are checked before they are
 * stored: a count is a whole number from 0 to 2^53 − 1 (beyond that a JavaScript number cannot
 * hold it exactly), a cost a finite amount from 0 to a million dollars. A value outside its range
 * is not stored (null) and said so, one warning per field — a run is still imported.
 */
import type {Trajectory} from './model.js';

export interface FieldWarning {
  field: string;
  message: string;
}

/** More than any real run has cost: a value above it is a unit mistake or a corrupt file. */
const MAX_COST = 1_000_000;

type Numbers = Pick<Trajectory, 'tokensIn' | 'tokensOut' | 'cost'>;

export function checkRanges<T extends Numbers>(header: T): {header: T; warnings: FieldWarning[]} {
  const warnings: FieldWarning[] = [];
  const out = {...header};
  for (const [key, field] of [
    ['tokensIn', 'tokens_in'],
    ['tokensOut', 'tokens_out'],
  ] as const) {
    const v = header[key];
    if (v === null) continue;
    if (!Number.isSafeInteger(v) || v < 0) {
      warnings.push({
        field,
        message: `${v} is not a token count (a whole number from 0 to ${Number.MAX_SAFE_INTEGER}): not stored`,
      });
      out[key] = null;
    }
  }
  const cost = header.cost;
  if (cost !== null && (!Number.isFinite(cost) || cost < 0 || cost > MAX_COST)) {
    warnings.push({
      field: 'cost',
      message: `${cost} is not a cost in dollars (0 to ${MAX_COST.toLocaleString('en-US')}): not stored`,
    });
    out.cost = null;
  }
  return {header: out, warnings};
}
