/**
 * AgentLens process quality (DESIGN.md; formulas in readme.md "Process lens"): the four
 * signals of one run against its reference, the waste signals with the steps involved, the
 * tier of a passing run and the mechanism of a Lucky one. Pure.
 */
import type {Stage} from './labeller.js';
import {equivalent} from './pta.js';
import type {ActionState} from './state.js';

export interface LensStep {
  /** the step's index in the trajectory */
  idx: number;
  stage: Stage;
  state: ActionState;
}

export interface Signals {
  coherence: number;
  alignment: number;
  coverage: number;
  temporal: number;
}

/** Equal weights: quality = 100 × the mean of the four signals. */
const WEIGHTS: Signals = {coherence: 0.25, alignment: 0.25, coverage: 0.25, temporal: 0.25};

export function quality(s: Signals): number {
  const total = WEIGHTS.coherence + WEIGHTS.alignment + WEIGHTS.coverage + WEIGHTS.temporal;
  return round1(
    (100 *
      (WEIGHTS.coherence * s.coherence +
        WEIGHTS.alignment * s.alignment +
        WEIGHTS.coverage * s.coverage +
        WEIGHTS.temporal * s.temporal)) /
      total,
  );
}

const RANK: Record<Stage, number> = {E: 0, I: 1, V: 2, O: -1};
const STAGES: Stage[] = ['E', 'I', 'V', 'O'];

/**
 * Coherence: 1 − (backward stage changes / stage changes) over the run's E, I and V steps in
 * order (O ignored). A backward change goes to an earlier stage (V→I, V→E, I→E). 1 when the
 * run never changes stage.
 */
export function coherence(stages: Stage[]): number {
  const seq = stages.filter(s => s !== 'O');
  let changes = 0;
  let back = 0;
  for (let i = 1; i < seq.length; i += 1) {
    if (seq[i] === seq[i - 1]) continue;
    changes += 1;
    if (RANK[seq[i]!] < RANK[seq[i - 1]!]) back += 1;
  }
  return changes ? round3(1 - back / changes) : 1;
}

/**
 * Structural alignment: the longest common subsequence of the run's states and the reference's
 * best-supported path (states matched by equivalence), divided by the longer of the two.
 */
export function alignment(states: ActionState[], path: ActionState[]): number {
  const n = states.length;
  const m = path.length;
  if (!n && !m) return 1;
  let prev = new Array<number>(m + 1).fill(0);
  for (let i = 1; i <= n; i += 1) {
    const row = new Array<number>(m + 1).fill(0);
    for (let j = 1; j <= m; j += 1) {
      row[j] = equivalent(states[i - 1]!, path[j - 1]!).match ? prev[j - 1]! + 1 : Math.max(prev[j]!, row[j - 1]!);
    }
    prev = row;
  }
  return round3(prev[m]! / Math.max(n, m));
}

/** Set coverage: the share of the reference's key states the run has an equivalent of (1 when there are none). */
export function coverage(states: ActionState[], key: ActionState[]): {value: number; missing: ActionState[]} {
  const missing = key.filter(k => !states.some(s => equivalent(k, s).match));
  return {value: key.length ? round3(1 - missing.length / key.length) : 1, missing};
}

const BINS = 4;

/** The stage mix of each of BINS equal parts of the run (null: a part with no step). */
export function profile(stages: Stage[]): (number[] | null)[] {
  const bins: number[][] = Array.from({length: BINS}, () => [0, 0, 0, 0]);
  stages.forEach((s, i) => {
    bins[Math.min(BINS - 1, Math.floor((i * BINS) / stages.length))]![STAGES.indexOf(s)]! += 1;
  });
  return bins.map(b => {
    const total = b.reduce((x, y) => x + y, 0);
    return total ? b.map(x => x / total) : null;
  });
}

/** The mean profile of reference runs, per bin over the runs that have steps in it. */
export function meanProfile(profiles: (number[] | null)[][]): (number[] | null)[] {
  return Array.from({length: BINS}, (_, b) => {
    const present = profiles.map(p => p[b]).filter((x): x is number[] => x !== null && x !== undefined);
    if (!present.length) return null;
    return STAGES.map((_, k) => present.reduce((sum, p) => sum + p[k]!, 0) / present.length);
  });
}

/** Jensen–Shannon divergence with log base 2 (in [0, 1]). */
export function jsd(p: number[], q: number[]): number {
  const m = p.map((x, i) => (x + q[i]!) / 2);
  const kl = (a: number[]) => a.reduce((sum, x, i) => (x > 0 ? sum + x * Math.log2(x / m[i]!) : sum), 0);
  return Math.max(0, Math.min(1, (kl(p) + kl(q)) / 2));
}

/** Temporal profile: 1 − the mean JSD between the run's and the reference's stage mix over the bins both have. */
export function temporal(stages: Stage[], reference: (number[] | null)[]): number {
  const own = profile(stages);
  const ds: number[] = [];
  own.forEach((p, b) => {
    const q = reference[b];
    if (p && q) ds.push(jsd(p, q));
  });
  return ds.length ? round3(1 - ds.reduce((x, y) => x + y, 0) / ds.length) : 0;
}

type WasteSignal =
  | 'regression-cycles'
  | 'blind-retries'
  | 'missing-final-verification'
  | 'excessive-exploration'
  | 'temporal-disorder';

export interface Waste {
  signal: WasteSignal;
  /** trajectory step indices involved (0-based, as `idx` in `show trajectory --json`) */
  steps: number[];
  /** for people: steps counted from 1, as the explorer shows them */
  detail: string;
}

/** Cut-offs of the waste signals (readme.md documents them). */
const WASTE_LIMITS = {regressionCycles: 2, blindRetries: 3, exploreFactor: 2, exploreMargin: 5, disorder: 0.25};

const isSourceEdit = (s: LensStep) => s.stage === 'I';
const isRun = (s: LensStep) =>
  s.state.kind === 'run-test' || s.state.kind === 'run-script' || s.state.alsoRuns !== undefined;

/**
 * Waste signals of one run. `referenceExploration` is the median number of E steps in the
 * reference runs (null: no reference).
 */
export function wasteSignals(steps: LensStep[], referenceExploration: number | null): Waste[] {
  const out: Waste[] = [];

  // regression cycles: a source edit, a verification, then an edit of the same code again
  const cycles: number[][] = [];
  steps.forEach((s, i) => {
    if (!isSourceEdit(s)) return;
    for (let k = i - 1; k >= 0; k -= 1) {
      const prev = steps[k]!;
      if (!isSourceEdit(prev) || !equivalent(prev.state, s.state).match) continue;
      const verify = steps.slice(k + 1, i).filter(x => x.stage === 'V');
      if (verify.length) cycles.push([prev.idx, ...verify.map(x => x.idx), s.idx]);
      break;
    }
  });
  if (cycles.length >= WASTE_LIMITS.regressionCycles) {
    out.push({
      signal: 'regression-cycles',
      steps: uniq(cycles.flat()),
      detail: `${cycles.length} times the same code was edited again after verifying it`,
    });
  }

  // blind retries: the same command ≥ 3 times with no edit in between
  const clusters: number[][] = [];
  let window: {state: ActionState; steps: number[]}[] = [];
  const flush = () => {
    for (const w of window) if (w.steps.length >= WASTE_LIMITS.blindRetries) clusters.push(w.steps);
    window = [];
  };
  for (const s of steps) {
    if (s.state.kind === 'edit' || s.state.kind === 'create') {
      flush();
      continue;
    }
    if (s.state.command === undefined || !(isRun(s) || s.state.kind === 'other-shell')) continue;
    const same = window.find(w => w.state.command === s.state.command || equivalent(w.state, s.state).match);
    if (same) same.steps.push(s.idx);
    else window.push({state: s.state, steps: [s.idx]});
  }
  flush();
  if (clusters.length) {
    out.push({
      signal: 'blind-retries',
      steps: uniq(clusters.flat()),
      detail: clusters
        .map(c => `${c.length}× the same command with no edit between (steps ${c.map(i => i + 1).join(', ')})`)
        .join('; '),
    });
  }

  // missing final verification: no test or script run after the last source edit (nor by it)
  const lastEdit = steps.map(isSourceEdit).lastIndexOf(true);
  if (lastEdit >= 0 && !steps.slice(lastEdit).some(isRun)) {
    out.push({
      signal: 'missing-final-verification',
      steps: [steps[lastEdit]!.idx],
      detail: `no test or script ran at or after the last source edit (step ${steps[lastEdit]!.idx + 1})`,
    });
  }

  // excessive exploration: more E steps than max(2 × the reference median, median + 5)
  if (referenceExploration !== null) {
    const explore = steps.filter(s => s.stage === 'E');
    const limit = Math.max(
      WASTE_LIMITS.exploreFactor * referenceExploration,
      referenceExploration + WASTE_LIMITS.exploreMargin,
    );
    if (explore.length > limit) {
      out.push({
        signal: 'excessive-exploration',
        steps: explore.slice(Math.ceil(referenceExploration)).map(s => s.idx),
        detail: `${explore.length} exploration steps; the reference runs' median is ${referenceExploration} (limit ${limit})`,
      });
    }
  }

  // temporal disorder: share of out-of-order pairs among E/I/V steps
  const d = disorder(steps.map(s => s.stage));
  if (d.ratio > WASTE_LIMITS.disorder) {
    const eiv = steps.filter(s => s.stage !== 'O');
    out.push({
      signal: 'temporal-disorder',
      steps: d.late.map(i => eiv[i]!.idx),
      detail: `${Math.round(d.ratio * 100)} % of stage pairs out of E→I→V order`,
    });
  }
  return out;
}

/**
 * Out-of-order stage pairs: among E/I/V steps, pairs (i < j) with different stages where step i
 * is in a later stage than step j, over all pairs with different stages. `late` are the
 * positions (among E/I/V steps) whose stage is earlier than a stage already seen.
 */
export function disorder(stages: Stage[]): {ratio: number; late: number[]} {
  const seq = stages.filter(s => s !== 'O').map(s => RANK[s]);
  const count = [0, 0, 0];
  let pairs = 0;
  let inversions = 0;
  const late: number[] = [];
  let max = -1;
  seq.forEach((r, j) => {
    for (let k = 0; k < 3; k += 1) {
      if (k === r) continue;
      pairs += count[k]!;
      if (k > r) inversions += count[k]!;
    }
    count[r]! += 1;
    if (r < max) late.push(j);
    max = Math.max(max, r);
  });
  return {ratio: pairs ? round3(inversions / pairs) : 0, late};
}

export type Tier = 'Ideal' | 'Solid' | 'Lucky';

/** Ideal needs quality ≥ this share of the way from the threshold to 100, and no waste. */
const IDEAL_SHARE = 0.5;

export function idealCut(threshold: number): number {
  return round1(threshold + IDEAL_SHARE * (100 - threshold));
}

/** Waste that makes a pass Lucky whatever its quality (the behaviours AgentLens names); excessive exploration only costs Ideal. */
const LUCKY_SIGNALS: WasteSignal[] = [
  'regression-cycles',
  'blind-retries',
  'missing-final-verification',
  'temporal-disorder',
];

/**
 * The tier of a passing run: Lucky when its quality is below the threshold (it scores like a
 * failing run) or it shows a Lucky behaviour (LUCKY_SIGNALS); Ideal at or above idealCut with no
 * waste at all; else Solid.
 */
export function tier(q: number, waste: Waste[], threshold: number): Tier {
  if (q < threshold || waste.some(w => LUCKY_SIGNALS.includes(w.signal))) return 'Lucky';
  return q >= idealCut(threshold) && !waste.length ? 'Ideal' : 'Solid';
}

type MechanismId = 'C1' | 'C2' | 'C3' | 'C4' | 'C5';

const MECHANISMS: Record<MechanismId, string> = {
  C1: 'minimal & unverified',
  C2: 'brute-force convergence',
  C3: 'incomplete implementation',
  C4: 'excessive exploration',
  C5: 'divergent-but-valid',
};

export interface Mechanism {
  id: MechanismId;
  name: string;
  evidence: string[];
  steps: number[];
}

interface MechanismInput {
  steps: LensStep[];
  waste: Waste[];
  /** median number of steps of the reference runs */
  referenceLength: number;
  /** the reference's key implementation states and whether the run has each */
  keyEdits: {state: ActionState; covered: boolean}[];
  /** step index where the run leaves the reference (null: never) */
  divergence: number | null;
  signals: Signals;
}

/**
 * The mechanism of a Lucky pass, first that applies:
 * C1 no verification after the last source edit (the evidence gives its length against the reference runs' median);
 * C2 regression cycles or blind retries;
 * C3 fewer than half of the reference's key implementation states;
 * C4 excessive exploration;
 * C5 otherwise: a valid path the reference does not share (where it diverges).
 */
export function mechanism(input: MechanismInput): Mechanism {
  const w = (s: WasteSignal) => input.waste.find(x => x.signal === s);
  const unverified = w('missing-final-verification');
  if (unverified) {
    return make(
      'C1',
      [unverified.detail, `${input.steps.length} steps; the reference runs' median is ${input.referenceLength}`],
      unverified.steps,
    );
  }
  const brute = [w('regression-cycles'), w('blind-retries')].filter((x): x is Waste => Boolean(x));
  if (brute.length)
    return make(
      'C2',
      brute.map(b => b.detail),
      uniq(brute.flatMap(b => b.steps)),
    );
  const covered = input.keyEdits.filter(k => k.covered).length;
  if (input.keyEdits.length && covered < input.keyEdits.length / 2) {
    const missing = input.keyEdits.filter(k => !k.covered).map(k => describeState(k.state));
    return make(
      'C3',
      [
        `edits ${covered} of the reference's ${input.keyEdits.length} key implementation states`,
        `not edited: ${missing.join(', ')}`,
      ],
      [],
    );
  }
  const explore = w('excessive-exploration');
  if (explore) return make('C4', [explore.detail], explore.steps);
  const at = input.divergence;
  return make(
    'C5',
    [
      ...input.waste.map(x => x.detail),
      at === null ? 'follows the reference' : `leaves the reference at step ${at + 1}`,
      `structural alignment ${input.signals.alignment}, coverage ${input.signals.coverage}`,
    ],
    [...new Set([...input.waste.flatMap(x => x.steps), ...(at === null ? [] : [at])])].sort((a, b) => a - b),
  );
}

function make(id: MechanismId, evidence: string[], steps: number[]): Mechanism {
  return {id, name: MECHANISMS[id], evidence, steps};
}

/** One line for a state: kind and target. */
export function describeState(s: ActionState): string {
  const files = s.files
    .map(f => `${f.path}${f.scope ? `:${f.scope}` : ''}${f.lines ? `:${f.lines[0]}-${f.lines[1]}` : ''}`)
    .join(' ');
  const target = files || (s.command ? s.command.slice(0, 60) : '');
  return target ? `${s.kind} ${target}` : s.kind;
}

export interface Threshold {
  value: number;
  calibrated: boolean;
  /** balanced accuracy of "quality ≥ value ⇒ passes" on the runs it was calibrated on */
  balanced_accuracy: number | null;
  passing: number;
  failing: number;
  note: string;
}

const DEFAULT_THRESHOLD = 50;
/** Fewer passing or failing scored runs than this and the threshold is not calibrated (a handful of runs gives noise). */
const MIN_PER_CLASS = 5;

/**
 * The pass/fail separation threshold: of the midpoints between consecutive distinct quality
 * values (and the ends), the one with the highest balanced accuracy (TPR + TNR) / 2 of
 * "quality ≥ t ⇒ passes"; ties go to the lowest such value (fewer runs called Lucky).
 * With fewer than MIN_PER_CLASS passing or failing runs it is not calibrated: DEFAULT_THRESHOLD.
 */
export function calibrateThreshold(runs: {quality: number; resolved: boolean}[]): Threshold {
  const passing = runs.filter(r => r.resolved).length;
  const failing = runs.length - passing;
  if (passing < MIN_PER_CLASS || failing < MIN_PER_CLASS) {
    return {
      value: DEFAULT_THRESHOLD,
      calibrated: false,
      balanced_accuracy: null,
      passing,
      failing,
      note: `not calibrated: needs at least ${MIN_PER_CLASS} passing and ${MIN_PER_CLASS} failing scored runs (has ${passing} and ${failing}); default ${DEFAULT_THRESHOLD} (--threshold sets one)`,
    };
  }
  const values = [...new Set(runs.map(r => r.quality))].sort((a, b) => a - b);
  const candidates = [
    values[0]!,
    ...values.slice(1).map((v, i) => round1((v + values[i]!) / 2)),
    values[values.length - 1]! + 0.1,
  ];
  let best = {value: candidates[0]!, ba: -1};
  for (const t of candidates) {
    const tpr = runs.filter(r => r.resolved && r.quality >= t).length / passing;
    const tnr = runs.filter(r => !r.resolved && r.quality < t).length / failing;
    const ba = (tpr + tnr) / 2;
    if (ba > best.ba + 1e-12) best = {value: t, ba};
  }
  return {
    value: round1(best.value),
    calibrated: true,
    balanced_accuracy: round3(best.ba),
    passing,
    failing,
    note: `calibrated on ${passing} passing and ${failing} failing scored runs`,
  };
}

const uniq = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b);
const round1 = (x: number) => Math.round(x * 10) / 10;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
