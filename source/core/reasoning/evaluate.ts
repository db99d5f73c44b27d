/**
 * A detector measured against hand labels, step by step: per family (and for observations),
 * true and false positives, false negatives, precision and recall. Pure.
 */
import {FAMILY_ORDER, type MarkFamily} from './detect.js';

export interface LabelledStep {
  /** the families a person found in the thought, e.g. "BE" */
  families: string;
  observation: boolean;
}

interface FamilyScore {
  tp: number;
  fp: number;
  fn: number;
  /** null: the detector marked nothing of the family */
  precision: number | null;
  /** null: no step of the family was labelled */
  recall: number | null;
}

export function scoreDetector(steps: {label: LabelledStep; found: MarkFamily[]}[]): Record<MarkFamily, FamilyScore> {
  const out = {} as Record<MarkFamily, FamilyScore>;
  for (const f of [...FAMILY_ORDER, 'obs' as const]) {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const s of steps) {
      const truth = f === 'obs' ? s.label.observation : s.label.families.includes(f);
      const said = s.found.includes(f);
      if (truth && said) tp++;
      else if (said) fp++;
      else if (truth) fn++;
    }
    out[f] = {tp, fp, fn, precision: tp + fp ? tp / (tp + fp) : null, recall: tp + fn ? tp / (tp + fn) : null};
  }
  return out;
}
