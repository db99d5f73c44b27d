/**
 * Explanation scores as ExplainBench defines them (Eq. 1, §7.3): per sample run s, the
 * score of type d is the share of bugs b answered correctly, S_exp(s) the mean over types;
 * reported as the mean over runs ± the standard error of that mean (sample SD / √runs).
 * Wrong answers split into misaligned and uninformative (Table 4); overconfidence (Table 5);
 * ranks by explanation score and by efficacy with their shifts (Table 3).
 */
import {QUESTION_TYPES, type QuestionType} from '../questions/model.js';
import type {Verdict} from '../questions/answers.js';

export interface ScoredAnswer {
  question: string;
  type: QuestionType;
  instance: string;
  agent: string;
  explanations: string;
  sample: number;
  verdict: Verdict | null;
}

interface TypeScore {
  score: number | null;
  sem: number | null;
  /** questions (bugs) answered */
  n: number;
  runs: number;
  answers: number;
  misaligned: number | null;
  uninformative: number | null;
  unparseable: number;
}

export interface AgentScore {
  agent: string;
  explanations: string;
  types: Record<QuestionType, TypeScore>;
  sExp: number | null;
  sExpSem: number | null;
  runs: number;
  /** types without any answered question (left out of S_exp) */
  missingTypes: QuestionType[];
}

export function mean(xs: number[]): number | null {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/** Standard error of the mean with the sample standard deviation (n − 1); 0 for one value. */
export function sem(xs: number[]): number | null {
  if (!xs.length) return null;
  if (xs.length === 1) return 0;
  const m = mean(xs)!;
  const variance = xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
  return Math.sqrt(variance / xs.length);
}

function typeScore(answers: ScoredAnswer[]): {score: TypeScore; perRun: Map<number, number>} {
  const runs = new Map<number, {ok: number; n: number}>();
  const questions = new Set<string>();
  let mis = 0;
  let uninf = 0;
  let unparseable = 0;
  for (const a of answers) {
    questions.add(a.question);
    const r = runs.get(a.sample) ?? {ok: 0, n: 0};
    r.n += 1;
    if (a.verdict === 'correct') r.ok += 1;
    else if (a.verdict === 'misaligned') mis += 1;
    else if (a.verdict === 'uninformative') uninf += 1;
    else unparseable += 1;
    runs.set(a.sample, r);
  }
  const perRun = new Map([...runs].map(([s, r]) => [s, r.ok / r.n]));
  const values = [...perRun.values()];
  return {
    score: {
      score: mean(values),
      sem: sem(values),
      n: questions.size,
      runs: runs.size,
      answers: answers.length,
      misaligned: answers.length ? mis / answers.length : null,
      uninformative: answers.length ? uninf / answers.length : null,
      unparseable,
    },
    perRun,
  };
}

/** Scores per (agent, explanations), in first-seen order. */
export function explanationScores(answers: ScoredAnswer[]): AgentScore[] {
  const groups = new Map<string, ScoredAnswer[]>();
  for (const a of answers) {
    const key = `${a.agent}\u0000${a.explanations}`;
    const list = groups.get(key) ?? [];
    list.push(a);
    groups.set(key, list);
  }
  return [...groups.values()].map(list => {
    const types = {} as Record<QuestionType, TypeScore>;
    const perType = new Map<QuestionType, Map<number, number>>();
    for (const t of QUESTION_TYPES) {
      const {score, perRun} = typeScore(list.filter(a => a.type === t));
      types[t] = score;
      if (score.n) perType.set(t, perRun);
    }
    const runIds = new Set<number>();
    for (const runs of perType.values()) for (const s of runs.keys()) runIds.add(s);
    // S_exp(s): the mean over the types answered in run s
    const sRuns: number[] = [];
    for (const s of [...runIds].sort((a, b) => a - b)) {
      const vals = [...perType.values()].map(r => r.get(s)).filter((v): v is number => v !== undefined);
      if (vals.length === perType.size) sRuns.push(mean(vals)!);
    }
    return {
      agent: list[0]!.agent,
      explanations: list[0]!.explanations,
      types,
      sExp: mean(sRuns),
      sExpSem: sem(sRuns),
      runs: sRuns.length,
      missingTypes: QUESTION_TYPES.filter(t => !perType.has(t)),
    };
  });
}

/** Competition ranks (1, 2, 2, 4), higher value first; null values get no rank. */
export function ranks(values: (number | null)[]): (number | null)[] {
  return values.map(v => (v === null ? null : 1 + values.filter(o => o !== null && o > v).length));
}

/**
 * Overconfidence (Table 5): among end-to-end effect answers for patches that do not resolve
 * the issue, the share predicting the test passes after the patch.
 */
export function overconfidence(items: {question: string; resolved: boolean | null; predictsPass: boolean | null}[]): {
  notPassing: number;
  share: number | null;
} {
  const relevant = items.filter(i => i.resolved === false && i.predictsPass !== null);
  const pass = relevant.filter(i => i.predictsPass).length;
  return {
    notPassing: new Set(relevant.map(i => i.question)).size,
    share: relevant.length ? pass / relevant.length : null,
  };
}
