import type {Db} from '../store/db.js';
import {getTrace, latestDelta, listPairs} from '../store/traces.js';
import {liveWatch} from '../services/live-eval.js';
import {openStepper, type StepperModel, type WatchValue} from '../services/stepper.js';
import {
  countTrajectories,
  getStepHeads,
  getSteps,
  getTrajectory,
  listTrajectories,
  type StepHead,
  type StepRow,
  type TrajectoryDetail,
  type TrajectoryQuery,
  type TrajectorySummary,
} from '../store/trajectories.js';

/** What the explorer reads: the same store queries the CLI uses, bound to one connection. */
export interface ExplorerData {
  label: string;
  count(query: TrajectoryQuery): number;
  list(query: TrajectoryQuery): TrajectorySummary[];
  trajectory(id: number): TrajectoryDetail | null;
  stepHeads(id: number, offset: number, limit: number): StepHead[];
  step(id: number, idx: number): StepRow | null;
  /** traced pairs, or only those of one trajectory's patch */
  pairs(trajectory?: number): PairListRow[];
  stepper(pair: number): StepperModel | {error: string};
  liveWatch(model: StepperModel, row: number, exprs: string[]): Promise<WatchValue[]>;
}

export interface PairListRow {
  pair: number;
  instance: string;
  label: string | null;
  test: string;
  buggy: string;
  patched: string;
  delta: string;
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
    return {pair: p.id, instance: p.instance, label: p.label, test: p.test, buggy: b?.outcome?.status ?? b?.status ?? '?', patched: t?.outcome?.status ?? t?.status ?? '?', delta};
  });
}

export function storeData(db: Db, label: string): ExplorerData {
  const steppers = new Map<number, StepperModel | {error: string}>();
  return {
    label,
    count: query => countTrajectories(db, query),
    list: query => listTrajectories(db, query),
    trajectory: id => getTrajectory(db, id),
    stepHeads: (id, offset, limit) => getStepHeads(db, id, offset, limit),
    step: (id, idx) => getSteps(db, id, idx, 1)[0] ?? null,
    pairs: trajectory => pairRows(db, trajectory),
    stepper: pair => {
      let model = steppers.get(pair);
      if (!model) {
        model = openStepper(db, pair);
        steppers.set(pair, model);
      }
      return model;
    },
    liveWatch: (model, row, exprs) => liveWatch(model, row, exprs),
  };
}
