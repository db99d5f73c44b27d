/**
 * What the explorer's store readers (ui/data.ts) hand the screens: plain data, defined here so
 * that the data layer depends on no screen and each screen reads the shape it draws.
 */
import type {LensResult, RunScore} from '../core/lens/build.js';
import type {Question} from '../core/questions/model.js';
import type {InstanceDetail} from '../store/instances.js';
import type {ExclusionRow} from '../store/questions.js';

/** A run's stored lens score with the threshold it was tiered by. */
export type LensScore = RunScore & {threshold: LensResult['threshold']};

/** An instance's record and what the store holds about it. */
export interface InstanceData {
  detail: InstanceDetail;
  runs: {id: number; agent: string; resolved: boolean | null; steps: number; format: string}[];
  pairs: {id: number; label: string | null; test: string; delta: string}[];
  questions: {id: string; type: string; agent: string | null}[];
  /** what questions build did not build, and why (the latest attempt of each) */
  exclusions: ExclusionRow[];
}

/** A question with an explanation, its stored answers and the prompt. */
export interface QuestionData {
  q: Question;
  explanation: {id: number; kind: string; text: string | null} | null;
  answers: {
    model: string;
    sample: number;
    letters: string[] | null;
    verdict: string | null;
    raw: string | null;
    order: string[] | null;
  }[];
  prompt: string | null;
}

/** One row of an agent's questions: how often it was answered right. */
export interface AgentQuestionRow {
  question: string;
  type: string;
  instance: string;
  correct: number;
  total: number;
  verdicts: string;
}
