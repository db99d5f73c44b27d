/** The explorer's reader of traced pairs: the list, and a pair opened in the stepper (kept open for the session). */
import type {Db} from '../../store/db.js';
import {getTrace, latestDelta, listPairs} from '../../store/traces.js';
import {openStepper, type StepperModel} from '../../services/stepper.js';

export interface PairListRow {
  pair: number;
  instance: string;
  label: string | null;
  test: string;
  buggy: string;
  patched: string;
  delta: string;
}

export interface TracesReader {
  /** traced pairs, or only those of one trajectory's patch */
  pairs(trajectory?: number): PairListRow[];
  stepper(pair: number): StepperModel | {error: string};
}

export function tracesReader(db: Db): TracesReader {
  const steppers = new Map<number, StepperModel | {error: string}>();
  return {
    pairs: trajectory => pairRows(db, trajectory),
    stepper: pair => {
      let model = steppers.get(pair);
      if (!model) {
        model = openStepper(db, pair);
        steppers.set(pair, model);
      }
      return model;
    },
  };
}

function pairRows(db: Db, trajectory?: number): PairListRow[] {
  return listPairs(db)
    .filter(p => trajectory === undefined || p.trajectory === trajectory)
    .map(p => {
      const b = p.buggyTrace ? getTrace(db, p.buggyTrace) : null;
      const t = p.patchedTrace ? getTrace(db, p.patchedTrace) : null;
      const d = latestDelta(db, p.id);
      const delta = !d
        ? 'no delta'
        : d.status === 'none'
          ? '∅ no effect'
          : d.status === 'incomplete'
            ? `incomplete: ${d.reason ?? ''}`
            : `${d.kind} · ${d.function}${d.line !== null ? `:${d.line}` : ''}`;
      return {
        pair: p.id,
        instance: p.instance,
        label: p.label,
        test: p.test,
        buggy: b?.outcome?.status ?? b?.status ?? '?',
        patched: t?.outcome?.status ?? t?.status ?? '?',
        delta,
      };
    });
}
