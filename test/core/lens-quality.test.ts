import {describe, expect, it} from 'vitest';
import {buildLens, referenceTree, type LensRun} from '../../source/core/lens/build.js';
import type {Stage} from '../../source/core/lens/labeller.js';
import {buildPta, toDag} from '../../source/core/lens/pta.js';
import {
  alignment,
  calibrateThreshold,
  coherence,
  disorder,
  jsd,
  mechanism,
  quality,
  temporal,
  tier,
  wasteSignals,
  type LensStep,
} from '../../source/core/lens/quality.js';
import type {ActionState} from '../../source/core/lens/state.js';
import {cohenKappa} from '../../source/core/scoring/agreement.js';

const read = (path: string): ActionState => ({kind: 'read', files: [{path}]});
const search = (cmd: string): ActionState => ({kind: 'search', files: [], command: cmd, group: 'search'});
const edit = (path: string): ActionState => ({kind: 'edit', files: [{path}]});
const test = (cmd = 'python -m pytest tests/test_a.py'): ActionState => ({
  kind: 'run-test',
  files: [],
  command: cmd,
  group: 'test',
});
const submit: ActionState = {kind: 'submit', files: []};

/** A run from "stage:state" pairs; indices are the step numbers. */
function steps(...items: [Stage, ActionState][]): LensStep[] {
  return items.map(([stage, state], idx) => ({idx, stage, state}));
}

describe('AgentLens signals (hand-computed)', () => {
  it('coherence counts backward stage changes among E/I/V, ignoring O', () => {
    expect(coherence(['E', 'I', 'V', 'I', 'V'])).toBe(0.75); // 4 changes, 1 backward (V→I)
    expect(coherence(['E', 'O', 'I', 'V', 'O'])).toBe(1);
    expect(coherence(['E', 'I', 'E', 'I', 'E'])).toBe(0.5);
    expect(coherence(['E', 'E'])).toBe(1);
  });

  it('structural alignment is the LCS with the best path over the longer length', () => {
    expect(alignment([read('a.py'), search('grep -n foo'), edit('a.py')], [read('a.py'), edit('a.py')])).toBe(0.667);
    expect(alignment([read('a.py'), edit('a.py')], [read('a.py'), edit('a.py')])).toBe(1);
    expect(alignment([edit('b.py')], [read('a.py'), edit('a.py')])).toBe(0);
  });

  it('temporal profile is 1 − mean JSD over four bins; quality is 100 × the mean', () => {
    expect(jsd([1, 0, 0, 0], [1, 0, 0, 0])).toBe(0);
    expect(jsd([1, 0, 0, 0], [0, 1, 0, 0])).toBe(1);
    expect(jsd([1, 0], [0.5, 0.5])).toBeCloseTo(0.3113, 4);
    const allE = Array.from({length: 4}, () => [1, 0, 0, 0]);
    // EEEEIIII: bins EE EE II II; against an all-E reference: JSD 0, 0, 1, 1 → 1 − 0.5
    expect(temporal(['E', 'E', 'E', 'E', 'I', 'I', 'I', 'I'], allE)).toBe(0.5);
    expect(temporal(['E', 'E', 'E', 'E'], allE)).toBe(1);
    expect(quality({coherence: 1, alignment: 0.5, coverage: 0.5, temporal: 1})).toBe(75);
  });

  it('temporal disorder: out-of-order pairs over pairs of different stages', () => {
    // ranks 0 1 2 0: pairs (E,I) (E,V) (I,V) (E,E)-skip, (I,E) (V,E) → 5 pairs, 2 inversions
    expect(disorder(['E', 'I', 'V', 'E'])).toEqual({ratio: 0.4, late: [3]});
    expect(disorder(['E', 'E', 'I', 'V', 'O'])).toEqual({ratio: 0, late: []});
  });

  it('calibrates the threshold with the best balanced accuracy (ties: the lowest) and refuses to on a handful of runs', () => {
    const runs = [
      ...[60, 70, 80, 90, 95].map(quality => ({quality, resolved: true})),
      ...[20, 30, 40, 50, 65].map(quality => ({quality, resolved: false})),
    ];
    // 55: TPR 5/5, TNR 4/5; 67.5: TPR 4/5, TNR 5/5 — both 0.9, the lower wins
    expect(calibrateThreshold(runs)).toMatchObject({
      value: 55,
      calibrated: true,
      balanced_accuracy: 0.9,
      passing: 5,
      failing: 5,
    });
    expect(calibrateThreshold(runs.slice(0, 7))).toMatchObject({value: 50, calibrated: false, passing: 5, failing: 2});
  });

  it('tiers: Lucky below the threshold or with a Lucky behaviour, Ideal halfway to 100 without waste, else Solid', () => {
    expect(tier(49.9, [], 50)).toBe('Lucky');
    expect(tier(75, [], 50)).toBe('Ideal');
    expect(tier(74.9, [], 50)).toBe('Solid');
    expect(tier(90, [{signal: 'blind-retries', steps: [1], detail: ''}], 50)).toBe('Lucky');
    expect(tier(90, [{signal: 'excessive-exploration', steps: [1], detail: ''}], 50)).toBe('Solid');
  });
});

describe('AgentLens waste signals', () => {
  const clean = steps(['E', read('a.py')], ['I', edit('a.py')], ['V', test()], ['O', submit]);
  const names = (run: LensStep[], median: number | null = 1) => wasteSignals(run, median).map(w => w.signal);

  it('a clean run has none', () => {
    expect(wasteSignals(clean, 1)).toEqual([]);
  });

  it('regression cycles: the same code edited again after verifying it, twice', () => {
    const run = steps(
      ['E', read('a.py')],
      ['I', edit('a.py')],
      ['V', test()],
      ['I', edit('a.py')],
      ['V', test('python repro.py')],
      ['I', edit('a.py')],
      ['V', test()],
    );
    const w = wasteSignals(run, 1).find(x => x.signal === 'regression-cycles');
    expect(w?.steps).toEqual([1, 2, 3, 4, 5]);
    // one fix after a failing test is normal work
    expect(names(run.slice(0, 5))).not.toContain('regression-cycles');
  });

  it('blind retries: the same command three times with no edit between', () => {
    const run = steps(
      ['E', read('a.py')],
      ['I', edit('a.py')],
      ['V', test()],
      ['V', test()],
      ['V', test('python -m pytest tests/test_a.py -x')],
    );
    expect(wasteSignals(run, 1).find(x => x.signal === 'blind-retries')?.steps).toEqual([2, 3, 4]);
    const withEdit = steps(['I', edit('a.py')], ['V', test()], ['V', test()], ['I', edit('b.py')], ['V', test()]);
    expect(names(withEdit)).not.toContain('blind-retries');
  });

  it('missing final verification: nothing runs after the last source edit', () => {
    const run = steps(['E', read('a.py')], ['I', edit('a.py')], ['O', submit]);
    expect(wasteSignals(run, 1)).toEqual([expect.objectContaining({signal: 'missing-final-verification', steps: [1]})]);
    // an edit whose own command runs the code verifies itself
    const selfChecking = steps(['E', read('a.py')], ['I', {...edit('a.py'), alsoRuns: 'script'}], ['O', submit]);
    expect(names(selfChecking)).toEqual([]);
  });

  it('excessive exploration: more E steps than max(2 × the reference median, median + 5)', () => {
    const explore = (n: number) =>
      steps(
        ...Array.from({length: n}, (_, i) => ['E', read(`f${i}.py`)] as [Stage, ActionState]),
        ['I', edit('a.py')],
        ['V', test()],
      );
    expect(names(explore(9), 3)).toContain('excessive-exploration'); // limit max(6, 8) = 8
    expect(names(explore(8), 3)).not.toContain('excessive-exploration');
    expect(wasteSignals(explore(9), 3).find(w => w.signal === 'excessive-exploration')!.steps).toEqual([
      3, 4, 5, 6, 7, 8,
    ]);
  });

  it('temporal disorder: over a quarter of stage pairs out of order', () => {
    const run = steps(
      ['I', edit('a.py')],
      ['V', test()],
      ['E', read('a.py')],
      ['E', read('b.py')],
      ['E', search('grep x')],
    );
    expect(wasteSignals(run, null).find(w => w.signal === 'temporal-disorder')?.steps).toEqual([2, 3, 4]);
    expect(names(clean)).not.toContain('temporal-disorder');
  });
});

describe('AgentLens mechanisms of Lucky passes', () => {
  const signals = {coherence: 0.5, alignment: 0.3, coverage: 0.4, temporal: 0.6};
  const base = {referenceLength: 5, keyEdits: [], divergence: 2, signals};
  const short = steps(['E', read('a.py')], ['I', edit('a.py')], ['O', submit]);

  it('C1 minimal & unverified', () => {
    expect(mechanism({...base, steps: short, waste: wasteSignals(short, 1)})).toMatchObject({id: 'C1', steps: [1]});
  });
  it('C2 brute-force convergence', () => {
    const waste = [{signal: 'blind-retries' as const, steps: [2, 3, 4], detail: '3× the same command'}];
    expect(mechanism({...base, steps: short, waste})).toMatchObject({id: 'C2', steps: [2, 3, 4]});
  });
  it('C3 incomplete implementation', () => {
    const m = mechanism({
      ...base,
      steps: short,
      waste: [],
      keyEdits: [
        {state: edit('a.py'), covered: false},
        {state: edit('b.py'), covered: false},
        {state: edit('c.py'), covered: true},
      ],
    });
    expect(m.id).toBe('C3');
    expect(m.evidence.join(' ')).toContain('edit a.py, edit b.py');
  });
  it('C4 excessive exploration', () => {
    const waste = [{signal: 'excessive-exploration' as const, steps: [5, 6], detail: 'x'}];
    expect(mechanism({...base, steps: short, waste})).toMatchObject({id: 'C4'});
  });
  it('C5 divergent-but-valid otherwise, with where it leaves the reference', () => {
    expect(mechanism({...base, steps: short, waste: []})).toMatchObject({id: 'C5', steps: [2]});
  });
});

describe('AgentLens build over a task', () => {
  let next = 1;
  const run = (agent: string, resolved: boolean, ...items: [Stage, ActionState][]): LensRun => ({
    id: next++,
    instance: 'T',
    agent,
    resolved,
    steps: steps(...items),
  });
  const methodical = () =>
    run(
      'careful',
      true,
      ['E', read('src/a.py')],
      ['E', search('grep -rn parse src')],
      ['I', edit('src/a.py')],
      ['V', test()],
      ['O', submit],
    );
  const failing = () =>
    run(
      'sloppy',
      false,
      ['E', read('README.md')],
      ['E', search('grep -rn foo docs')],
      ['E', read('setup.py')],
      ['O', submit],
    );

  function task() {
    next = 1;
    const good = [methodical(), methodical(), methodical(), methodical(), methodical()];
    const brute = run(
      'sloppy',
      true,
      ['E', read('src/a.py')],
      ['I', edit('src/a.py')],
      ['V', test()],
      ['I', edit('src/a.py')],
      ['V', test()],
      ['I', edit('src/a.py')],
      ['V', test()],
      ['V', test()],
      ['V', test()],
      ['O', submit],
    );
    const unverified = run('hasty', true, ['I', edit('src/a.py')], ['O', submit]);
    const fails = [failing(), failing(), failing(), failing(), failing()];
    return {good, brute, unverified, all: [...good, brute, unverified, ...fails]};
  }

  it('scores every run against the other passing runs, calibrates, and finds the Lucky passes and their mechanisms', () => {
    const {good, brute, unverified, all} = task();
    const r = buildLens(all);
    expect(r.threshold.calibrated).toBe(true);
    const of = (id: number) => r.runs.find(s => s.trajectory === id)!;
    for (const g of good) {
      expect(of(g.id).reference.runs).not.toContain(g.id); // leave-one-out
      expect(of(g.id).reference.runs).toHaveLength(6);
      expect(of(g.id).tier).not.toBe('Lucky');
      expect(of(g.id).mechanism).toBeNull();
      expect(of(g.id).waste).toEqual([]);
    }
    expect(of(brute.id)).toMatchObject({tier: 'Lucky', mechanism: {id: 'C2'}});
    expect(of(unverified.id)).toMatchObject({tier: 'Lucky', mechanism: {id: 'C1'}});
    expect(of(brute.id).quality).toBeLessThan(of(good[0]!.id).quality);
    // failing runs are scored against all passing runs and get no tier
    const f = r.runs.find(s => s.resolved === false)!;
    expect(f.tier).toBeNull();
    expect(f.reference.runs).toHaveLength(7);
  });

  it('--exclude-lucky rebuilds the references without the Lucky runs', () => {
    const {good, brute, unverified, all} = task();
    const plain = buildLens(all);
    const strict = buildLens(all, {excludeLucky: true});
    const ref = (r: typeof plain) => r.runs.find(s => s.trajectory === good[0]!.id)!.reference;
    expect(ref(plain).runs).toContain(brute.id);
    expect(ref(strict).runs).not.toContain(brute.id);
    expect(ref(strict).runs).not.toContain(unverified.id);
    expect(ref(strict).excluded_lucky).toEqual([brute.id, unverified.id]);
    expect(strict.rounds[0]!.lucky).toEqual([brute.id, unverified.id]);
    expect(strict.rounds.length).toBeGreaterThan(1);
    expect(strict.rounds.at(-1)!.excluded).toEqual(strict.rounds.at(-1)!.lucky);
    // the methodical runs now match their reference better
    expect(strict.runs.find(s => s.trajectory === good[0]!.id)!.quality).toBeGreaterThanOrEqual(
      plain.runs.find(s => s.trajectory === good[0]!.id)!.quality,
    );
  });

  it('skips tasks without enough passing runs and says why', () => {
    next = 100;
    const lone = {...methodical(), instance: 'U'};
    const r = buildLens([lone, {...failing(), instance: 'U'}]);
    expect(r.runs).toEqual([]);
    expect(r.skipped).toEqual([{instance: 'U', runs: 2, passing: 1, reason: '1 passing run; needs at least 2'}]);
    expect(() => buildLens([lone], {minPassing: 1})).toThrow(/at least 2/);
  });

  it('ranks agents by pass rate and by quality, with the shift', () => {
    const {all} = task();
    const r = buildLens(all);
    const row = (agent: string) => r.rankings.find(a => a.agent === agent)!;
    expect(row('careful')).toMatchObject({
      runs: 5,
      resolved: 5,
      pass_rate: 1,
      pass_rank: 1,
      lucky: 0,
      passing_scored: 5,
    });
    expect(row('hasty')).toMatchObject({runs: 1, pass_rate: 1, pass_rank: 1, lucky: 1, lucky_rate: 1});
    expect(row('sloppy')).toMatchObject({runs: 6, resolved: 1, pass_rank: 3, lucky: 1});
    // hasty passes as often as careful but its quality ranks it below
    expect(row('hasty').quality_rank).toBeGreaterThan(row('careful').quality_rank!);
    expect(row('hasty').shift).toBe(row('hasty').pass_rank! - row('hasty').quality_rank!);
    expect(row('hasty').shift).toBeLessThan(0);
  });

  it('gives the PTA a run is scored against, and its DAG form merges agreeing suffixes', () => {
    const {good, all} = task();
    const tree = referenceTree({runs: all}, good[0]!.id);
    expect(tree.runs).not.toContain(good[0]!.id);
    expect(tree.root.support).toBe(6);
    const runs = [
      {id: 'a', states: [read('x.py'), edit('src/a.py'), test()]},
      {id: 'b', states: [read('y.py'), edit('src/a.py'), test()]},
    ];
    const pta = buildPta(runs);
    expect(pta.children).toHaveLength(2);
    const dag = toDag(pta);
    expect(dag.children).toHaveLength(2);
    const [x, y] = dag.children;
    expect(x!.children[0]).toBe(y!.children[0]); // one shared "edit src/a.py" node
    expect(x!.children[0]!.support).toBe(2);
    expect(x!.children[0]!.children[0]!.support).toBe(2);
    expect(pta.children[0]!.children[0]!.support).toBe(1); // the tree is untouched
  });
});

describe("Cohen's κ", () => {
  it('matches hand-computed values, including the degenerate cases', () => {
    // p_o 0.75, p_e 0.5·0.25 + 0.5·0.75 = 0.5 → 0.5
    expect(cohenKappa(['E', 'E', 'I', 'I'], ['E', 'I', 'I', 'I'])).toMatchObject({
      n: 4,
      raw: 0.75,
      cohen_kappa: 0.5,
      confusion: [
        [1, 1],
        [0, 2],
      ],
    });
    expect(cohenKappa(['E', 'I', 'V'], ['E', 'I', 'V']).cohen_kappa).toBe(1);
    expect(cohenKappa(['E', 'E', 'E'], ['E', 'E', 'E']).cohen_kappa).toBe(1); // one category, full agreement
    expect(cohenKappa(['E', 'I', 'E', 'I'], ['E', 'E', 'I', 'I']).cohen_kappa).toBe(0); // chance level
    expect(cohenKappa(['E', 'E', 'I', 'I'], ['I', 'I', 'E', 'E']).cohen_kappa).toBe(-1);
    expect(cohenKappa([], []).cohen_kappa).toBeNull();
  });
});
