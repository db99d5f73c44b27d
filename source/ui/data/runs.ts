/** The explorer's reader of runs: trajectories, their steps, stages, reasoning marks, lens scores and references. */
import type {LensResult, RunScore} from '../../core/lens/build.js';
import type {Db} from '../../store/db.js';
import {lensRankings, lensScoreOf, whyNotScored} from '../../store/lens.js';
import {referenceView, type PtaView} from '../../services/lens.js';
import {reasoningLetters, reasoningOf, type StoredMark} from '../../store/reasoning.js';
import {reasoningReport, type ReasoningReport} from '../../services/reasoning.js';
import {agentNames} from '../../store/agents.js';
import {
  countTrajectories,
  getStageString,
  getStepHeads,
  getSteps,
  getTrajectory,
  listTrajectories,
  type StepHead,
  type StepRow,
  type TrajectoryDetail,
  type TrajectoryQuery,
  type TrajectorySummary,
} from '../../store/trajectories.js';

/** A run's stored lens score with the threshold it was tiered by. */
export type LensScore = RunScore & {threshold: LensResult['threshold']};

export interface RunsReader {
  count(query: TrajectoryQuery): number;
  list(query: TrajectoryQuery): TrajectorySummary[];
  trajectory(id: number): TrajectoryDetail | null;
  stepHeads(id: number, offset: number, limit: number): StepHead[];
  step(id: number, idx: number): StepRow | null;
  /** intent stages of the run's steps, one letter each */
  stages(id: number): string;
  /** the run's code-reasoning marks: one family letter per step ('·' none), and every mark */
  reasoning(id: number): {letters: string; marks: StoredMark[]};
  /** the code-reasoning report (deltalens reasoning report) */
  reasoningReport(): ReasoningReport;
  /** the run's stored lens score, or why it has none */
  lens(id: number): {score: LensScore | null; why: string};
  /** the reference the run is scored against, with its path through it */
  pta(id: number): PtaView | null;
  rankings(): ReturnType<typeof lensRankings>;
  /** the agents with runs, by name */
  agents(): string[];
}

/** The explorer reads at most this many characters of one text (a step's observation, a
 * patch): wrapping 4 M characters takes ~0.2 s; the rest is a command away. */
const VIEW_CHARS = 4 * 1024 * 1024;

export function runsReader(db: Db): RunsReader {
  return {
    count: query => countTrajectories(db, query),
    list: query => listTrajectories(db, query),
    trajectory: id => getTrajectory(db, id, VIEW_CHARS),
    stepHeads: (id, offset, limit) => getStepHeads(db, id, offset, limit),
    step: (id, idx) => getSteps(db, id, idx, 1, VIEW_CHARS)[0] ?? null,
    stages: id => getStageString(db, id),
    reasoning: id => ({letters: reasoningLetters(db, id), marks: reasoningOf(db, id)}),
    reasoningReport: () => reasoningReport(db),
    lens: id => {
      const score = lensScoreOf(db, id);
      if (score) return {score, why: ''};
      const t = getTrajectory(db, id);
      return {score: null, why: t ? whyNotScored(db, t.instance) : 'not scored'};
    },
    pta: id => referenceView(db, id),
    rankings: () => lensRankings(db),
    agents: () => agentNames(db),
  };
}
