/**
 * AgentLens end to end over stored runs (pure): per task, leave-one-out PTA references from the
 * passing runs, the four signals, quality, the calibrated threshold, tiers, waste, mechanisms,
 * and the per-agent rankings. With `excludeLucky`, references are rebuilt without the runs the
 * previous round classed Lucky, until the Lucky set stops changing (at most MAX_ROUNDS).
 */
import {ranks} from '../scoring/metrics.js';
import {padMiddle} from '../text/sanitize.js';
import {bestPath, buildPta, divergence, equivalent, type PtaNode} from './pta.js';
import {
  alignment,
  calibrateThreshold,
  coherence,
  describeState,
  idealCut,
  mechanism,
  meanProfile,
  profile,
  quality,
  temporal,
  tier,
  wasteSignals,
  type LensStep,
  type Mechanism,
  type Signals,
  type Threshold,
  type Tier,
  type Waste,
} from './quality.js';
import type {ActionState} from './state.js';

export interface LensRun {
  id: number;
  instance: string;
  agent: string;
  resolved: boolean | null;
  steps: LensStep[];
}

export interface LensOptions {
  /** passing runs a task needs to be scored (≥ 2: leave-one-out needs one other) */
  minPassing?: number;
  excludeLucky?: boolean;
  instance?: string;
  /** a fixed threshold instead of the calibrated one */
  threshold?: number;
}

const MAX_ROUNDS = 5;

export interface RunScore {
  trajectory: number;
  instance: string;
  agent: string;
  resolved: boolean | null;
  quality: number;
  signals: Signals;
  /** passing runs only */
  tier: Tier | null;
  /** Lucky runs only */
  mechanism: Mechanism | null;
  waste: Waste[];
  /** the step where the run leaves its reference's tree (null: never) */
  divergence: number | null;
  reference: {
    runs: number[];
    excluded_lucky: number[];
    best_path: number;
    key_states: string[];
    missing_key_states: string[];
  };
}

export interface AgentRanking {
  agent: string;
  runs: number;
  resolved: number;
  pass_rate: number | null;
  scored: number;
  mean_quality: number | null;
  /** scored passing runs (the Lucky rate's denominator) */
  passing_scored: number;
  lucky: number;
  lucky_rate: number | null;
  pass_rank: number | null;
  quality_rank: number | null;
  /** pass_rank − quality_rank: positive moves up when ranked by quality */
  shift: number | null;
}

export interface LensResult {
  options: {min_passing: number; exclude_lucky: boolean; instance: string | null; fixed_threshold: number | null};
  threshold: Threshold & {ideal: number};
  runs: RunScore[];
  skipped: {instance: string; reason: string; runs: number; passing: number}[];
  rankings: AgentRanking[];
  rounds: {round: number; excluded: number[]; lucky: number[]}[];
}

interface Cluster {
  rep: ActionState;
  stage: LensStep['stage'];
}

interface Task {
  instance: string;
  runs: LensRun[];
  passing: LensRun[];
  seq: Map<number, LensStep[]>;
  clusters: Cluster[];
  covers: Map<number, Set<number>>;
  profiles: Map<number, ReturnType<typeof profile>>;
}

/** The steps that take part in references: every step but `think`. */
export function referenceSteps(steps: LensStep[]): LensStep[] {
  return steps.filter(s => s.state.kind !== 'think');
}

function prepareTask(instance: string, runs: LensRun[]): Task {
  const passing = runs.filter(r => r.resolved === true);
  const seq = new Map(runs.map(r => [r.id, referenceSteps(r.steps)]));
  // key-state clusters over the passing runs' non-O states; a run covers a cluster when one of
  // its states is equivalent to the cluster's first state
  const clusters: Cluster[] = [];
  for (const r of passing) {
    for (const s of seq.get(r.id)!) {
      if (s.stage === 'O') continue;
      if (!clusters.some(c => equivalent(c.rep, s.state).match)) clusters.push({rep: s.state, stage: s.stage});
    }
  }
  const covers = new Map<number, Set<number>>();
  for (const r of runs) {
    const own = seq.get(r.id)!;
    const set = new Set<number>();
    clusters.forEach((c, i) => {
      if (own.some(s => s.stage !== 'O' && equivalent(c.rep, s.state).match)) set.add(i);
    });
    covers.set(r.id, set);
  }
  return {
    instance,
    runs,
    passing,
    seq,
    clusters,
    covers,
    profiles: new Map(runs.map(r => [r.id, profile(r.steps.map(s => s.stage))])),
  };
}

function median(xs: number[]): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The reference runs of one run: the task's passing runs but itself and the excluded (kept if nothing else is left). */
function referenceRuns(
  passing: LensRun[],
  runId: number,
  excluded: Set<number>,
): {runs: LensRun[]; excludedLucky: number[]} {
  const others = passing.filter(r => r.id !== runId);
  const kept = others.filter(r => !excluded.has(r.id));
  if (!kept.length) return {runs: others, excludedLucky: []};
  return {runs: kept, excludedLucky: others.filter(r => excluded.has(r.id)).map(r => r.id)};
}

/** The PTA a run is scored against (leave-one-out, without the excluded runs). */
export function referenceTree(
  task: {runs: LensRun[]},
  runId: number,
  excluded: Set<number> = new Set(),
): {root: PtaNode; runs: number[]} {
  const passing = task.runs.filter(r => r.resolved === true);
  const ref = referenceRuns(passing, runId, excluded).runs;
  return {
    root: buildPta(ref.map(r => ({id: String(r.id), states: referenceSteps(r.steps).map(s => s.state)}))),
    runs: ref.map(r => r.id),
  };
}

interface Scored {
  run: LensRun;
  quality: number;
  signals: Signals;
  waste: Waste[];
  divergence: number | null;
  reference: RunScore['reference'];
  mechanismInput: Omit<Parameters<typeof mechanism>[0], 'waste' | 'signals'>;
}

function scoreRun(task: Task, run: LensRun, excluded: Set<number>): Scored {
  const {runs: refs, excludedLucky} = referenceRuns(task.passing, run.id, excluded);
  const seq = task.seq.get(run.id)!;
  const states = seq.map(s => s.state);
  const root = buildPta(refs.map(r => ({id: String(r.id), states: task.seq.get(r.id)!.map(s => s.state)})));
  const path = bestPath(root).map(n => n.state!);
  const div = divergence(root, states);

  const need = Math.ceil(refs.length / 2);
  const key = task.clusters
    .map((c, i) => ({c, i}))
    .filter(({i}) => refs.filter(r => task.covers.get(r.id)!.has(i)).length >= need);
  const own = task.covers.get(run.id)!;
  const missing = key.filter(({i}) => !own.has(i));
  const cov = key.length ? Math.round((1000 * (key.length - missing.length)) / key.length) / 1000 : 1;

  const stages = run.steps.map(s => s.stage);
  const signals: Signals = {
    coherence: coherence(stages),
    alignment: alignment(states, path),
    coverage: cov,
    temporal: temporal(stages, meanProfile(refs.map(r => task.profiles.get(r.id)!))),
  };
  const exploreMedian = median(refs.map(r => r.steps.filter(s => s.stage === 'E').length));
  const waste = wasteSignals(run.steps, exploreMedian);
  return {
    run,
    quality: quality(signals),
    signals,
    waste,
    divergence: div === null ? null : seq[div]!.idx,
    reference: {
      runs: refs.map(r => r.id),
      excluded_lucky: excludedLucky,
      best_path: path.length,
      key_states: key.map(({c}) => describeState(c.rep)),
      missing_key_states: missing.map(({c}) => describeState(c.rep)),
    },
    mechanismInput: {
      steps: run.steps,
      referenceLength: median(refs.map(r => r.steps.length)),
      keyEdits: key.filter(({c}) => c.stage === 'I').map(({c, i}) => ({state: c.rep, covered: own.has(i)})),
      divergence: div === null ? null : seq[div]!.idx,
    },
  };
}

export function buildLens(all: LensRun[], options: LensOptions = {}): LensResult {
  const minPassing = options.minPassing ?? 2;
  if (minPassing < 2)
    throw new RangeError('min-passing must be at least 2: a run is scored against the other passing runs');
  const runs = options.instance ? all.filter(r => r.instance === options.instance) : all;
  const byInstance = new Map<string, LensRun[]>();
  for (const r of runs) {
    const list = byInstance.get(r.instance);
    if (list) list.push(r);
    else byInstance.set(r.instance, [r]);
  }

  const tasks: Task[] = [];
  const skipped: LensResult['skipped'] = [];
  for (const [instance, list] of [...byInstance].sort(([a], [b]) => a.localeCompare(b))) {
    const passing = list.filter(r => r.resolved === true).length;
    if (passing < minPassing) {
      const unknown = list.filter(r => r.resolved === null).length;
      skipped.push({
        instance,
        runs: list.length,
        passing,
        reason: `${passing} passing run${passing === 1 ? '' : 's'}${unknown ? ` (${unknown} without a resolved status)` : ''}; needs at least ${minPassing}`,
      });
    } else tasks.push(prepareTask(instance, list));
  }

  let excluded = new Set<number>();
  const rounds: LensResult['rounds'] = [];
  let scores: RunScore[] = [];
  let threshold: LensResult['threshold'] = {...calibrateThreshold([]), ideal: idealCut(50)};
  for (let round = 1; round <= (options.excludeLucky ? MAX_ROUNDS : 1); round += 1) {
    const scored = tasks.flatMap(t => t.runs.map(r => scoreRun(t, r, excluded)));
    const base =
      options.threshold !== undefined
        ? {
            value: options.threshold,
            calibrated: false,
            balanced_accuracy: null,
            passing: 0,
            failing: 0,
            note: `fixed by --threshold ${options.threshold}`,
          }
        : calibrateThreshold(
            scored
              .filter(s => s.run.resolved !== null)
              .map(s => ({quality: s.quality, resolved: s.run.resolved === true})),
          );
    threshold = {...base, ideal: idealCut(base.value)};
    scores = scored.map(s => {
      const t = s.run.resolved === true ? tier(s.quality, s.waste, threshold.value) : null;
      return {
        trajectory: s.run.id,
        instance: s.run.instance,
        agent: s.run.agent,
        resolved: s.run.resolved,
        quality: s.quality,
        signals: s.signals,
        tier: t,
        mechanism: t === 'Lucky' ? mechanism({...s.mechanismInput, waste: s.waste, signals: s.signals}) : null,
        waste: s.waste,
        divergence: s.divergence,
        reference: s.reference,
      };
    });
    const lucky = new Set(scores.filter(s => s.tier === 'Lucky').map(s => s.trajectory));
    rounds.push({round, excluded: [...excluded].sort((a, b) => a - b), lucky: [...lucky].sort((a, b) => a - b)});
    if (!options.excludeLucky || sameSet(lucky, excluded)) break;
    excluded = lucky;
  }
  return {
    options: {
      min_passing: minPassing,
      exclude_lucky: Boolean(options.excludeLucky),
      instance: options.instance ?? null,
      fixed_threshold: options.threshold ?? null,
    },
    threshold,
    runs: scores,
    skipped,
    rankings: rankAgents(runs, scores),
    rounds,
  };
}

const sameSet = (a: Set<number>, b: Set<number>) => a.size === b.size && [...a].every(x => b.has(x));

/** Per agent: pass rate over its runs with a known status, mean quality and Lucky rate over its scored runs, and both ranks. */
function rankAgents(runs: LensRun[], scores: RunScore[]): AgentRanking[] {
  const agents = [...new Set(runs.map(r => r.agent))].sort();
  const rows = agents.map(agent => {
    const own = runs.filter(r => r.agent === agent);
    const known = own.filter(r => r.resolved !== null);
    const resolved = known.filter(r => r.resolved).length;
    const scored = scores.filter(s => s.agent === agent);
    const passingScored = scored.filter(s => s.tier !== null);
    const lucky = passingScored.filter(s => s.tier === 'Lucky').length;
    return {
      agent,
      runs: own.length,
      resolved,
      pass_rate: known.length ? round3(resolved / known.length) : null,
      scored: scored.length,
      mean_quality: scored.length
        ? Math.round((10 * scored.reduce((sum, s) => sum + s.quality, 0)) / scored.length) / 10
        : null,
      passing_scored: passingScored.length,
      lucky,
      lucky_rate: passingScored.length ? round3(lucky / passingScored.length) : null,
    };
  });
  const passRanks = ranks(rows.map(r => r.pass_rate));
  const qualityRanks = ranks(rows.map(r => r.mean_quality));
  return rows
    .map((r, i) => {
      const pr = passRanks[i] ?? null;
      const qr = qualityRanks[i] ?? null;
      return {...r, pass_rank: pr, quality_rank: qr, shift: pr !== null && qr !== null ? pr - qr : null};
    })
    .sort(
      (a, b) =>
        (a.quality_rank ?? Infinity) - (b.quality_rank ?? Infinity) ||
        (a.pass_rank ?? Infinity) - (b.pass_rank ?? Infinity) ||
        a.agent.localeCompare(b.agent),
    );
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The rankings table, the same in `lens report` and the explorer: a header, then one row per agent. */
export const RANKING_HEADER = `${'agent'.padEnd(30)} runs  pass  rank   quality  rank  shift  lucky`;

export function rankingRow(a: AgentRanking): string {
  const shift = a.shift === null ? '-' : a.shift > 0 ? `▲${a.shift}` : a.shift < 0 ? `▼${-a.shift}` : '=';
  const passRate = a.pass_rate === null ? '-' : `${Math.round(a.pass_rate * 100)}%`;
  const quality = a.mean_quality === null ? '-' : a.mean_quality.toFixed(1);
  return `${padMiddle(a.agent, 30)} ${String(a.runs).padStart(4)}  ${passRate.padStart(4)}  ${String(a.pass_rank ?? '-').padStart(4)}   ${quality.padStart(7)}  ${String(a.quality_rank ?? '-').padStart(4)}  ${shift.padStart(5)}  ${a.passing_scored ? `${a.lucky}/${a.passing_scored}` : '-'}`;
}
