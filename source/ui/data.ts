import type {Db} from '../store/db.js';
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
}

export function storeData(db: Db, label: string): ExplorerData {
  return {
    label,
    count: query => countTrajectories(db, query),
    list: query => listTrajectories(db, query),
    trajectory: id => getTrajectory(db, id),
    stepHeads: (id, offset, limit) => getStepHeads(db, id, offset, limit),
    step: (id, idx) => getSteps(db, id, idx, 1)[0] ?? null,
  };
}
