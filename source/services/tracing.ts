/**
 * `deltalens trace`: build the two trees, find what the patch changed, trace the test on
 * each side twice (the second run finds nondeterministic values), store the traces and
 * the delta.
 */
import {mkdirSync, writeFileSync} from 'node:fs';
import {basename, join} from 'node:path';
import {
  confirmationPlan,
  emptyNondeterminism,
  extractDelta,
  planValues,
  type DeltaOption,
  type DeltaResult,
  type Nondeterminism,
} from '../core/trace/delta.js';
import {addedFunctions, focusPlan, focusTargets, type FocusPlan} from '../core/trace/focus.js';
import {LineMap, type Changes} from '../core/trace/line-map.js';
import type {TraceSource} from '../core/trace/model.js';
import type {RunnerMode} from '../core/instances/runner.js';
import {writeTx, type Db} from '../store/db.js';
import {rerunNondeterminism} from './delta.js';
import {
  createTrace,
  discardTraces,
  ensureTraceTarget,
  insertPair,
  sameControlFlow,
  saveDelta,
  StoredTrace,
  type TraceSummary,
} from '../store/traces.js';
import {forget, forgetTraces, makeTempDir, rememberTrace} from './leftovers.js';
import {copyRegularFiles, readBack, readTextInTree} from './tree-files.js';
import {PythonError, pythonRunner, runPython, type PythonRunner, type RunResult} from './python.js';
import type {SandboxPolicy} from './sandbox.js';
import {StreamedTrace} from './trace-ingest.js';
import {prepareWorkspace, type WorkspaceSpec} from './workspace.js';

interface TraceLimits {
  timeoutS: number;
  maxEvents: number;
  maxBytes: number;
}

export const DEFAULT_LIMITS: TraceLimits = {timeoutS: 300, maxEvents: 5_000_000, maxBytes: 2 * 1024 ** 3};

export interface TracePairOptions {
  python: string;
  test: string;
  /** a hypothesis plan made by the caller (its failing example, found once): used as it is, no search */
  hypothesis?: HypothesisPlan;
  /** how the test runs (default auto: a pytest node id, or a script) */
  mode?: RunnerMode;
  /** an image's root file system the runs see as their system (--image); `python` is its interpreter */
  image?: string;
  instance?: string;
  label?: string;
  trajectory?: number | null;
  versionKind?: 'gold' | 'agent';
  limits?: Partial<TraceLimits>;
  keep?: boolean;
  /** confirm a found delta with a second run per side: values that differ between two runs of
   * one side are no evidence (default on) */
  reruns?: boolean;
  /** delta points confirmed by targeted runs before the re-runs record values wherever run 1
   * did (default CONFIRM_ROUNDS) */
  confirmRounds?: number;
  deltaOptions?: DeltaOption[];
  /** record state only on call paths to the patch-modified functions (default on) */
  focus?: boolean;
  /** load installed pytest plugins (default on; off starts pytest ~1 s faster) */
  pytestPlugins?: boolean;
  /**
   * planned (default): control flow first (a skeleton run per side), then values only where
   * the walk compares them (a plan); all: values everywhere in one run per side
   */
  values?: 'planned' | 'all';
  /** planned values: the first run per side records every value until it has written this many
   * events (control flow only after that); when both stay within it, that run is the trace and
   * no planned run is made. 0: control flow only in the first run (default VALUE_BUDGET) */
  valueBudget?: number;
  /** the seed for random, numpy and the generators a program makes without one, before each
   * test, the same on both sides (default 0); null leaves randomness alone (--no-seed) */
  seed?: number | null;
  /** require (default: untrusted code), prefer (the bundled demo), off (--no-sandbox) */
  sandbox?: SandboxPolicy;
  /** environment variables the project needs, passed into the sandbox by name */
  passEnv?: string[];
  onProgress?: (message: string) => void;
  /** --no-sandbox: said on every run */
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
}
interface SideResult {
  trace: number;
  rerun: number | null;
  summary: TraceSummary;
  ms: number;
}

interface TracePairResult {
  pair: number;
  delta: DeltaResult & {id: number};
  buggy: SideResult;
  patched: SideResult;
  changes: Changes;
  patch: string;
  /** what each side's run recorded (with the callers leading there), and why; null: --no-focus */
  focus: FocusPlan | null;
  /** how a property-based test's examples were chosen (mode off for other tests) */
  hypothesis: {mode: HypothesisPlan['mode']; falsifying: string | null; note: string};
  workspace: {buggy: string; patched: string; kept: boolean};
  nondeterministic: string[];
  /** how the runs were confined */
  sandbox: string;
  /** how the second runs confirmed the delta */
  confirmation: Confirmation;
  /** where values were recorded */
  values:
    | {mode: 'planned'; frames: {buggy: number; patched: number}; valued: {buggy: number; patched: number}}
    | {mode: 'all'; reason: string};
}

/** how the delta was confirmed by second runs (off: --no-rerun; not needed: ∅ or incomplete) */
type Confirmation =
  | 'off'
  | 'not needed'
  | 'at the delta point'
  | `at the delta point, after ${number} rounds`
  | `everywhere (${string})`;

/**
 * Events a first run per side records with every value before it goes on with control flow
 * only (planned values). A valued event costs 10–100 µs against a few for control flow; 5,000
 * of them cost at most about 0.5 s, and a run within it saves a whole run per side, most of
 * which is the program's start-up (about 0.9 s for a short sympy test, traced or not).
 */
export const VALUE_BUDGET = 5000;

/**
 * Targeted confirmation rounds before the re-runs record values wherever run 1 did. One: on a
 * real sympy test whose hashes depend on object addresses, each round found one more varying
 * value and cost more than the whole-plan re-run saves (3 rounds: 47 s against 35 s).
 */
export const CONFIRM_ROUNDS = 1;

type ValuesReport =
  | {
      mode: 'planned';
      skeleton: {buggy: number; patched: number};
      frames: {buggy: number; patched: number};
      valued: {buggy: number; patched: number};
    }
  | {mode: 'all'; reason: string};

export class TraceRunError extends Error {}

/** The seed a pair is traced with: 0 by default, null when randomness is left alone. */
export function seedOf(seed: number | null | undefined): number | null {
  return seed === undefined ? 0 : seed;
}

/** The tracer's arguments for it (every run of a pair, and its live re-runs, the same). */
export function seedArgs(seed: number | null | undefined): string[] {
  const s = seedOf(seed);
  return s === null ? ['--no-seed'] : ['--seed', String(s)];
}

/** The run was stopped (Ctrl+C, SIGTERM): nothing of it is kept. */
export class Interrupted extends Error {}

/** The most `deltatrace changes` may write (its diff is the patch's): a patch larger is refused. */
const MAX_CHANGES_BYTES = 256 * 1024 * 1024;

export async function changesBetween(
  runner: PythonRunner,
  buggy: string,
  patched: string,
): Promise<{changes: Changes; diff: string}> {
  // ast and difflib only, but over untrusted files: confined, reading both trees, writing its
  // answer into a folder of its own (a large patch's diff does not fit the captured output)
  const out = makeTempDir('changes');
  try {
    const file = join(out, 'changes.json');
    const r = await runPython(
      runner,
      ['-m', 'deltatrace', 'changes', '--buggy', buggy, '--patched', patched, '--out', file],
      {cwd: buggy, timeoutMs: 120_000, writable: [out], readable: [buggy, patched]},
    );
    if (r.exitCode !== 0)
      throw new TraceRunError(
        `deltatrace changes failed: ${r.timedOut ? 'timed out after 120 s' : r.stderr.trim().split('\n').slice(-3).join(' ')}`,
      );
    let parsed: Changes & {diff: string};
    try {
      parsed = JSON.parse(
        readBack(file, MAX_CHANGES_BYTES, 'the changes between the trees').toString('utf8'),
      ) as Changes & {diff: string};
    } catch (error) {
      throw new TraceRunError(`deltatrace changes gave no readable answer: ${(error as Error).message}`);
    }
    const {diff, ...changes} = parsed;
    return {changes, diff};
  } finally {
    forget(out);
  }
}

/**
 * The callers, on the patched side, of functions the patch adds, from a run that recorded them
 * (the added functions in its focus record their callers as a path): for each added function
 * that ran, the nearest frame up its call chain whose function both versions have. A
 * dispatcher that finds `_print_Rational` by name is found so, where no static search can.
 */
function callersOfAdded(trace: TraceSource, changes: Changes): {target: string; calls: string}[] {
  const added = addedFunctions(changes);
  const addedKeys = new Set(added.map(f => `${f.file}:${f.qualname}`));
  const addedFiles = new Set(changes.files.filter(f => f.status === 'added').map(f => f.file));
  const out: {target: string; calls: string}[] = [];
  for (const fn of added) {
    const frame = trace.findFrame?.(fn.file, fn.qualname);
    if (!frame) continue;
    let parent = frame.parent === null ? undefined : trace.frame(frame.parent);
    while (
      parent &&
      parent.fid !== 0 &&
      (addedKeys.has(`${parent.file}:${parent.fn}`) || addedFiles.has(parent.file))
    ) {
      parent = parent.parent === null ? undefined : trace.frame(parent.parent);
    }
    if (!parent || parent.fid === 0) continue;
    const target = `${parent.file}:${parent.fn}`;
    if (!out.some(c => c.target === target)) out.push({target, calls: fn.qualname});
  }
  return out;
}

/**
 * How a property-based test (one that uses hypothesis) is run on both sides: `replay` the
 * failing example the buggy side found (the delta is taken on it), or `derandomize` (the same
 * examples everywhere) when the buggy side passes every example; `off` for other tests.
 */
export interface HypothesisPlan {
  mode: 'off' | 'derandomize' | 'replay';
  /** the example database replayed (a copy deltalens made of what the search saved) */
  db?: string;
  /** the failing example as hypothesis shows it, when this hypothesis says */
  falsifying?: string | null;
  note: string;
}

const HYPOTHESIS = /(^|\n)\s*(from\s+hypothesis\b|import\s+hypothesis\b)/;

/** Whether the test uses hypothesis, from its file in the tree (read without following links). */
export function usesHypothesis(tree: string, test: string): boolean {
  const rel = test.split('::')[0]!;
  if (!rel.endsWith('.py')) return false;
  try {
    const text = readTextInTree(tree, rel, 8 * 1024 * 1024);
    return text !== null && HYPOTHESIS.test(text);
  } catch {
    return false;
  }
}

/**
 * A hypothesis test: one untraced run on the buggy side looks for a failing example and saves it
 * (shrunk) in an example database; the traced runs of both sides then replay only that example.
 */
export async function prepareHypothesis(
  runner: PythonRunner,
  tree: string,
  test: string,
  scratch: string,
  o: {seed?: number | null; timeoutS: number; signal?: AbortSignal; mode?: RunnerMode},
): Promise<HypothesisPlan> {
  const found = join(scratch, 'hypothesis-search');
  mkdirSync(found, {recursive: true});
  const args = [
    '-m',
    'deltatrace',
    'outcome',
    '--root',
    tree,
    ...seedArgs(o.seed),
    ...(o.mode ? ['--mode', o.mode] : []),
    '--hypothesis',
    'find',
    '--hypothesis-db',
    found,
    '--',
    test,
  ];
  const r = await runPython(runner, args, {
    cwd: tree,
    timeoutMs: o.timeoutS * 1000,
    writable: [tree, found],
    testbed: tree,
    signal: o.signal,
  });
  let outcome: {status?: string; falsifying?: string} = {};
  try {
    outcome = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as typeof outcome;
  } catch {
    /* no outcome line: the search did not finish */
  }
  const db = join(scratch, 'hypothesis-replay');
  const copied =
    outcome.status === 'failed' ? copyRegularFiles(found, db, {maxFiles: 10_000, maxBytes: 1024 * 1024}) : 0;
  forget(found);
  if (copied) {
    return {
      mode: 'replay',
      db,
      falsifying: outcome.falsifying ?? null,
      note: `hypothesis: the buggy side fails on ${outcome.falsifying ? outcome.falsifying.replace(/\s+/g, ' ') : 'an example it found'}; both sides replay only that example`,
    };
  }
  const why = r.timedOut
    ? 'the search for a failing example timed out'
    : outcome.status === 'failed'
      ? 'the buggy side fails, but hypothesis saved no example'
      : `the buggy side ${outcome.status ?? 'did not report an outcome'}`;
  return {mode: 'derandomize', note: `hypothesis: ${why}; both sides run the same derandomized examples`};
}

interface RunContext {
  db: Db;
  runner: PythonRunner;
  /** every row this pair wrote so far, taken away again if it does not finish */
  rows: {traces: number[]; tests: number[]; instances: string[]};
}

async function traceOnce(
  ctx: RunContext,
  root: string,
  o: Omit<TracePairOptions, 'focus'> & {
    side: 'buggy' | 'patched';
    run: number;
    focusList: string[];
    instance: string;
    patch: string | null;
    record: 'full' | 'skeleton' | 'plan' | 'budget';
    planFile?: string;
    docsFile?: string;
    hypothesis?: HypothesisPlan;
  },
  limits: TraceLimits,
): Promise<{id: number; summary: TraceSummary; run: RunResult}> {
  const {db, runner} = ctx;
  // the trace comes back over file descriptor 3 and goes into the store as it arrives
  const args = [
    '-m',
    'deltatrace',
    'run',
    '--root',
    root,
    '--out-fd',
    '3',
    '--max-events',
    String(limits.maxEvents),
    '--max-bytes',
    String(limits.maxBytes),
  ];
  args.push('--timeout', String(Math.max(1, limits.timeoutS - 5)));
  args.push(...seedArgs(o.seed));
  for (const f of o.focusList) args.push('--focus', f);
  args.push('--record', o.record);
  if (o.record === 'budget') args.push('--value-budget', String(o.valueBudget ?? VALUE_BUDGET));
  if (o.planFile) args.push('--plan', o.planFile);
  if (o.docsFile) args.push('--docs', o.docsFile);
  if (o.hypothesis && o.hypothesis.mode !== 'off')
    args.push('--hypothesis', o.hypothesis.mode, ...(o.hypothesis.db ? ['--hypothesis-db', o.hypothesis.db] : []));
  if (o.mode) args.push('--mode', o.mode);
  args.push('--', o.test);
  const env: Record<string, string> = o.pytestPlugins === false ? {PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1'} : {};
  const id = createTrace(db, {
    instance: o.instance,
    versionKind: o.side === 'buggy' ? 'buggy' : (o.versionKind ?? 'agent'),
    patch: o.side === 'buggy' ? null : o.patch,
    trajectory: o.side === 'buggy' ? null : (o.trajectory ?? null),
    test: o.test,
    side: o.side,
    run: o.run,
    label: o.label ?? null,
    sandbox: runner.confinement.label,
  });
  ctx.rows.traces.push(id);
  rememberTrace(db.name, {traces: [id]});
  const stream = new StreamedTrace(db, id, `${o.side} run ${o.run}`);
  const controller = new AbortController();
  const stop = () => controller.abort();
  o.signal?.addEventListener('abort', stop);
  let run: RunResult;
  try {
    run = await runPython(runner, args, {
      cwd: root,
      timeoutMs: limits.timeoutS * 1000,
      signal: controller.signal,
      env,
      writable: [root],
      // both sides run at /testbed: nothing that holds a path differs between them
      testbed: root,
      readable: [
        ...(o.planFile ? [o.planFile] : []),
        ...(o.docsFile ? [o.docsFile] : []),
        ...(o.hypothesis?.db ? [o.hypothesis.db] : []),
      ],
      onTrace: chunk => {
        stream.chunk(chunk);
        if (stream.failure) controller.abort(); // a corrupt trace: stop the run
      },
    });
  } finally {
    o.signal?.removeEventListener('abort', stop);
  }
  if (o.signal?.aborted) throw new Interrupted('interrupted');
  // 124: the tracer's own --timeout stopped the focus pre-pass (the test does not end)
  const summary = stream.finish({
    timedOut: run.timedOut || run.exitCode === 124,
    stderr: run.stderr,
    exitCode: run.exitCode,
  });
  return {id, summary, run};
}

/** Both sides' runs; when one fails the other is stopped, and the first real error is thrown
 * once both have ended (never while a run is still writing). */
async function both<T>(tasks: [Promise<T>, Promise<T>], stop: AbortController): Promise<[T, T]> {
  for (const task of tasks) task.catch(() => stop.abort());
  const [a, b] = await Promise.allSettled(tasks);
  const errors = [a, b].flatMap(s => (s.status === 'rejected' ? [s.reason as Error] : []));
  if (errors.length) throw errors.find(e => !(e instanceof Interrupted)) ?? errors[0];
  return [(a as PromiseFulfilledResult<T>).value, (b as PromiseFulfilledResult<T>).value];
}

export async function tracePair(db: Db, spec: WorkspaceSpec, o: TracePairOptions): Promise<TracePairResult> {
  const progress = o.onProgress ?? (() => {});
  const limits = {...DEFAULT_LIMITS, ...o.limits};
  const runner = await pythonRunner(o.python, o.sandbox ?? 'require', {
    passEnv: o.passEnv,
    onWarning: o.onWarning,
    image: o.image,
  });
  progress(`python ${runner.install.version} (${runner.install.executable}); sandbox: ${runner.confinement.label}`);
  const ctx: RunContext = {db, runner, rows: {traces: [], tests: [], instances: []}};
  const ws = await prepareWorkspace(spec, runner);
  const scratch = makeTempDir('paths');
  // one side failing (or Ctrl+C) stops the other before anything is cleaned up
  const stopAll = new AbortController();
  const onAbort = () => stopAll.abort();
  o.signal?.addEventListener('abort', onAbort);
  let finished = false;
  let removing: Promise<void> | null = null;
  try {
    progress(`trees: buggy ${ws.buggy}, patched ${ws.patched}`);
    const {changes, diff} = await changesBetween(runner, ws.buggy, ws.patched);
    if (!changes.files.length) progress('the two trees are identical: the patch changes nothing');
    const plan = o.focus === false ? null : focusPlan(changes);
    let focus = plan ? focusTargets(plan) : {buggy: [], patched: []};
    progress(`patch-modified functions: ${changes.functions.map(f => `${f.file}:${f.qualname}`).join(', ') || 'none'}`);
    if (plan) {
      const more = [...plan.buggy, ...plan.patched].filter(e => e.why !== 'changed by the patch');
      if (more.length)
        progress(
          `also in the focus: ${[...new Map(more.map(e => [e.target, e])).values()].map(e => `${e.target} (${e.why})`).join('; ')}`,
        );
      if (!plan.buggy.length && !plan.patched.length)
        progress('no changed Python function or module: tracing everything under the root');
    } else progress('--no-focus: tracing everything under the root');
    // docstrings the patch edited: the tracer tags them, the same on both sides
    const docsFiles: {buggy?: string; patched?: string} = {};
    for (const which of ['buggy', 'patched'] as const) {
      const docs = (changes.docs ?? []).flatMap(d =>
        d[which] === null ? [] : [{id: `${d.file}:${d.qualname}`, text: d[which]}],
      );
      if (!docs.length) continue;
      docsFiles[which] = join(scratch, `${which}-docs.json`);
      writeFileSync(docsFiles[which]!, JSON.stringify({docs}));
    }
    const instance = o.instance ?? `local/${basename(spec.kind === 'dirs' ? spec.buggyDir : spec.repo)}`;
    const target = ensureTraceTarget(db, instance, o.test);
    ctx.rows.tests.push(...target.tests);
    ctx.rows.instances.push(...target.instances);
    rememberTrace(db.name, {traces: [], ...target});
    let hypothesis: HypothesisPlan = o.hypothesis ?? {mode: 'off', note: ''};
    if (!o.hypothesis && usesHypothesis(ws.buggy, o.test)) {
      progress('the test uses hypothesis: looking for a failing example on the buggy side (not traced)…');
      hypothesis = await prepareHypothesis(runner, ws.buggy, o.test, scratch, {
        seed: o.seed,
        timeoutS: limits.timeoutS,
        signal: stopAll.signal,
        mode: o.mode,
      });
      progress(hypothesis.note);
    }
    const common = {...o, instance, patch: diff, signal: stopAll.signal, hypothesis};
    type Run = Awaited<ReturnType<typeof traceOnce>> & {ms: number};
    type Sides = {buggy: Run; patched: Run};
    const side = async (
      which: 'buggy' | 'patched',
      run: number,
      record: 'full' | 'skeleton' | 'plan' | 'budget',
      planFile?: string,
    ): Promise<Run> => {
      const started = Date.now();
      const what = {
        skeleton: 'control flow',
        plan: 'planned values',
        budget: `values for its first ${(o.valueBudget ?? VALUE_BUDGET).toLocaleString('en')} events, control flow after`,
        full: 'values',
      }[record];
      progress(`tracing ${which} (run ${run}: ${what})…`);
      const r = await traceOnce(
        ctx,
        which === 'buggy' ? ws.buggy : ws.patched,
        {...common, side: which, run, focusList: focus[which], record, planFile, docsFile: docsFiles[which]},
        limits,
      );
      progress(
        `${which} run ${run}: ${r.summary.status}, test ${r.summary.outcome?.status ?? '?'}, ${r.summary.events} events, ${r.summary.frames} frames (${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );
      return {...r, ms: Date.now() - started};
    };
    /**
     * Whether run `b` took the path run `a` took, so that a plan naming frames by their number
     * fits it: complete runs entirely, runs cut short by a limit as far as both go (a run that
     * crashed or did not run has nothing to compare).
     */
    const follows = (a: Run, b: Run): boolean => {
      const usable = (s: string) => s === 'complete' || s === 'truncated' || s === 'timeout';
      if (!usable(a.summary.status) || !usable(b.summary.status)) return true;
      const whole = a.summary.status === 'complete' && b.summary.status === 'complete';
      return sameControlFlow(db, a.id, b.id, {prefix: !whole});
    };
    /** The sides whose run in `second` did not take the path of their run in `first`. */
    const offPath = (first: Sides, second: Sides) =>
      (['buggy', 'patched'] as const).filter(w => !follows(first[w], second[w]));
    const sidesText = (which: readonly string[]) => `the ${which.join(' and the ')} side`;
    /** Run `n` traced again on the given sides (with their plan), the other side's run kept. */
    const rerun = async (
      which: readonly ('buggy' | 'patched')[],
      keep: Sides,
      n: number,
      record: 'full' | 'skeleton' | 'plan',
      plans: {buggy?: string; patched?: string} = {},
    ): Promise<[Run, Run]> => {
      const again = await both(
        [
          which.includes('buggy') ? side('buggy', n, record, plans.buggy) : Promise.resolve(keep.buggy),
          which.includes('patched') ? side('patched', n, record, plans.patched) : Promise.resolve(keep.patched),
        ],
        stopAll,
      );
      if (o.signal?.aborted) throw new Interrupted('interrupted');
      return again;
    };
    // traces this pair does not keep (the skeletons, a plan that did not fit)
    const drop = (ids: number[]) => {
      discardTraces(db, {traces: ids});
      ctx.rows.traces = ctx.rows.traces.filter(id => !ids.includes(id));
      forgetTraces(db.name, {traces: ids});
    };
    const options = [...(o.deltaOptions ?? [])];
    const map = new LineMap(changes);
    // typed by assertion: makePlan (a closure) sets them, which narrowing does not see
    let record = 'full' as 'full' | 'plan';
    const planFiles: {buggy?: string; patched?: string; buggyConfirm?: string; patchedConfirm?: string} = {};
    let planned = {mode: 'all', reason: 'asked for (--values all)'} as ValuesReport;
    // Functions the patch adds have no frames on the buggy side: their callers, as a patched run
    // shows them, join the focus on both sides (one more control-flow run when there are any).
    const widen = (patchedRun: Run): boolean => {
      if (!plan) return false;
      const callers = callersOfAdded(new StoredTrace(db, patchedRun.id), changes).filter(
        c => !focus.buggy.includes(c.target) || !focus.patched.includes(c.target),
      );
      if (!callers.length) return false;
      for (const c of callers) {
        const why = `calls ${c.calls}, which the patch adds (as the patched run shows)`;
        for (const which of ['buggy', 'patched'] as const)
          if (!plan[which].some(e => e.target === c.target)) plan[which].push({target: c.target, why});
      }
      focus = focusTargets(plan);
      progress(
        `the callers of the functions the patch adds join the focus: ${callers.map(c => `${c.target} (calls ${c.calls})`).join(', ')}`,
      );
      return true;
    };
    const discovers = plan !== null && addedFunctions(changes).length > 0;
    if (discovers && o.values === 'all') {
      const sp = await side('patched', 0, 'skeleton');
      widen(sp);
      drop([sp.id]);
    }
    let skeletons: {buggy: Run; patched: Run} | null = null;
    /** Where values are needed, from the two control-flow runs: the plan files, and what is said of them. */
    const makePlan = (sb: Run, sp: Run) => {
      const plan = planValues({buggy: new StoredTrace(db, sb.id), patched: new StoredTrace(db, sp.id), map, options});
      for (const which of ['buggy', 'patched'] as const) {
        const file = join(scratch, `${which}-plan.json`);
        writeFileSync(file, JSON.stringify({cuts: plan[which]}));
        planFiles[which] = file;
      }
      record = 'plan';
      skeletons = {buggy: sb, patched: sp};
      planned = {
        mode: 'planned',
        skeleton: {buggy: sb.id, patched: sp.id},
        frames: {buggy: sb.summary.frames, patched: sp.summary.frames},
        valued: plan.valued,
      };
      progress(
        `values planned in ${plan.valued.buggy} of ${sb.summary.frames} frames (buggy) and ${plan.valued.patched} of ${sp.summary.frames} (patched)`,
      );
    };
    let first: Sides | null = null;
    if (o.values !== 'all') {
      // Control flow first: where the two runs can differ decides where values are needed. With
      // a budget, the first run records every value until it has written that many events: a
      // small run is then traced in one run per side (its start-up, not its events, is most of
      // its time), a large one gives the control flow to plan from.
      const budget = o.valueBudget ?? VALUE_BUDGET;
      const how = budget > 0 ? 'budget' : 'skeleton';
      const n = budget > 0 ? 1 : 0;
      let [sb, sp] = await both([side('buggy', n, how), side('patched', n, how)], stopAll);
      if (discovers && widen(sp)) {
        drop([sb.id, sp.id]);
        [sb, sp] = await both([side('buggy', n, how), side('patched', n, how)], stopAll);
      }
      if (sb.summary.withinBudget && sp.summary.withinBudget) {
        first = {buggy: sb, patched: sp};
        planned = {
          mode: 'all',
          reason: `the runs are small: every value fits the first run's budget of ${budget.toLocaleString('en')} events`,
        };
        progress(`both runs recorded every value within the budget: no planned run needed`);
      } else makePlan(sb, sp);
    }
    let [b1, p1] = first
      ? [first.buggy, first.patched]
      : await both([side('buggy', 1, record, planFiles.buggy), side('patched', 1, record, planFiles.patched)], stopAll);
    if (planned.mode === 'planned') {
      // the valued runs must follow the skeletons; if control flow varies from run to run, the
      // plan does not fit: values everywhere instead (never a wrong ∅)
      if (!follows(skeletons!.buggy, b1) || !follows(skeletons!.patched, p1)) {
        // Control flow that depends on object addresses goes another way now and then: the
        // side's control flow is traced once more. Agreeing with the first, the valued run was
        // the odd one and runs again with the same plan; agreeing with the valued run, the first
        // was, and values are planned again from the new one (seconds, where values everywhere
        // take a minute on a large test).
        const sk = skeletons!;
        const valued = {buggy: b1, patched: p1};
        const odd = offPath(sk, valued);
        progress(
          `control flow differs between two runs of ${sidesText(odd)}: tracing ${odd.length > 1 ? 'their' : 'its'} control flow once more…`,
        );
        const [nb, np] = await rerun(odd, sk, 0, 'skeleton');
        const fresh = {buggy: nb, patched: np};
        if (!offPath(sk, fresh).length) {
          drop(odd.map(w => fresh[w].id));
          progress(`the valued run went another way: running it once more…`);
          drop(odd.map(w => valued[w].id));
          [b1, p1] = await rerun(odd, valued, 1, record, planFiles);
        } else {
          drop([...odd.map(w => sk[w].id), b1.id, p1.id]);
          makePlan(fresh.buggy, fresh.patched);
          [b1, p1] = await rerun(['buggy', 'patched'], valued, 1, record, planFiles);
        }
      }
      if (!follows(skeletons!.buggy, b1) || !follows(skeletons!.patched, p1)) {
        progress('control flow differs between two runs of one side: tracing with values everywhere instead');
        drop([b1.id, p1.id]);
        planned = {mode: 'all', reason: 'control flow differed between the skeleton and the valued run'};
        record = 'full';
        planFiles.buggy = planFiles.patched = undefined;
        [b1, p1] = await both([side('buggy', 1, 'full'), side('patched', 1, 'full')], stopAll);
      }
      if (planned.mode === 'planned') {
        drop([planned.skeleton.buggy, planned.skeleton.patched]);
      }
    }
    if (o.signal?.aborted) throw new Interrupted('interrupted');

    progress('extracting the delta…');
    let result = extractDelta({buggy: new StoredTrace(db, b1.id), patched: new StoredTrace(db, p1.id), map, options});
    // Re-runs only confirm a difference: values that vary between two runs of one side are no
    // evidence, and nondeterminism can only take evidence away — so ∅ and incomplete stand as
    // they are. A found delta is confirmed by a second run per side with values at the delta
    // point; only if the difference there varies do the re-runs record values wherever run 1 did.
    let b2: Run | null = null;
    let p2: Run | null = null;
    let nondet: Nondeterminism = emptyNondeterminism();
    let confirmation: Confirmation = o.reruns === false ? 'off' : 'not needed';
    /** the re-runs took the same path as run 1 on both sides (complete runs only) */
    const followsRun1 = (b: Run, p: Run) =>
      [[b1, b] as const, [p1, p] as const].every(([first, second]) => follows(first, second));
    /**
     * A program whose control flow depends on object addresses (a set of objects hashed by id)
     * may take another path in a re-run now and then: the side that did is run once more with
     * the same plan (seconds) before the re-runs fall back to values everywhere (a minute on a
     * large test). Only a run that follows run 1 is used.
     */
    const runAgain = async (b: Run, p: Run, buggyPlan?: string, patchedPlan?: string): Promise<[Run, Run]> => {
      const again = offPath({buggy: b1, patched: p1}, {buggy: b, patched: p});
      progress(
        `control flow differs between two runs of ${sidesText(again)}: running ${again.length > 1 ? 'them' : 'it'} once more…`,
      );
      drop(again.map(w => (w === 'buggy' ? b.id : p.id)));
      return rerun(again, {buggy: b, patched: p}, 2, 'plan', {buggy: buggyPlan, patched: patchedPlan});
    };
    const collect = () => {
      nondet = rerunNondeterminism(db, [
        {first: b1.id, second: b2?.id ?? null},
        {first: p1.id, second: p2?.id ?? null},
      ]);
      return extractDelta({
        buggy: new StoredTrace(db, b1.id),
        patched: new StoredTrace(db, p1.id),
        map,
        options,
        nondeterminism: nondet,
      });
    };
    if (o.reruns !== false && result.status === 'found') {
      // Each round re-runs both sides with values at every delta point found so far; when the
      // difference at the newest one varies between runs, the walk moves on to a later point
      // and the next round confirms that too. After CONFIRM_ROUNDS the re-runs record values
      // wherever run 1 did. Nondeterminism always comes from one re-run per side against run 1,
      // so `delta` recomputed from the stored pair sees what this run saw.
      const maxRounds = o.confirmRounds ?? CONFIRM_ROUNDS;
      const points: {b: number | null; p: number | null}[] = [];
      let rounds = 0;
      for (;;) {
        const current = result;
        points.push({b: current.seqB, p: current.seqP});
        rounds++;
        for (const [which, trace] of [
          ['buggy', b1],
          ['patched', p1],
        ] as const) {
          const source = new StoredTrace(db, trace.id);
          const seqs = points.map(pt => (which === 'buggy' ? pt.b : pt.p));
          const file = join(scratch, `${which}-confirm.json`);
          writeFileSync(
            file,
            JSON.stringify({
              cuts: confirmationPlan(
                source,
                seqs.map(seq => (seq === null ? null : source.itemAt(seq))),
              ),
            }),
          );
          planFiles[which === 'buggy' ? 'buggyConfirm' : 'patchedConfirm'] = file;
        }
        progress(
          rounds === 1
            ? 'confirming the delta: a second run per side with values at the delta point…'
            : `the difference there varies between runs; confirming the next one (round ${rounds} of ${maxRounds})…`,
        );
        if (b2) drop([b2.id, p2!.id]);
        [b2, p2] = await both(
          [side('buggy', 2, 'plan', planFiles.buggyConfirm), side('patched', 2, 'plan', planFiles.patchedConfirm)],
          stopAll,
        );
        if (o.signal?.aborted) throw new Interrupted('interrupted');
        if (!followsRun1(b2, p2)) [b2, p2] = await runAgain(b2, p2, planFiles.buggyConfirm, planFiles.patchedConfirm);
        if (!followsRun1(b2, p2)) {
          // a plan names frames by their number in call order: it fits only the same control flow
          progress('control flow differs between two runs of one side: re-running with values everywhere…');
          drop([b2.id, p2.id]);
          [b2, p2] = await both([side('buggy', 2, 'full'), side('patched', 2, 'full')], stopAll);
          result = collect();
          confirmation = 'everywhere (control flow varied between runs)';
          break;
        }
        result = collect();
        const moved = result.status === 'found' && (result.seqB !== current.seqB || result.seqP !== current.seqP);
        if (!moved) {
          confirmation = rounds === 1 ? 'at the delta point' : `at the delta point, after ${rounds} rounds`;
          break;
        }
        if (rounds >= maxRounds) {
          // the walk goes on past the points, where the confirming runs have no values
          progress(
            `the difference at the delta point varies between runs: re-running with values wherever the first runs have them…`,
          );
          drop([b2.id, p2.id]);
          [b2, p2] = await both(
            [side('buggy', 2, record, planFiles.buggy), side('patched', 2, record, planFiles.patched)],
            stopAll,
          );
          if (record === 'plan' && !followsRun1(b2, p2))
            [b2, p2] = await runAgain(b2, p2, planFiles.buggy, planFiles.patched);
          if (record === 'plan' && !followsRun1(b2, p2)) {
            progress('control flow differs between two runs of one side: re-running with values everywhere…');
            drop([b2.id, p2.id]);
            [b2, p2] = await both([side('buggy', 2, 'full'), side('patched', 2, 'full')], stopAll);
          }
          result = collect();
          confirmation = `everywhere (the difference varied between runs at ${rounds === 1 ? 'the delta point' : `${rounds} delta points`})`;
          break;
        }
      }
      if (o.signal?.aborted) throw new Interrupted('interrupted');
    }
    // every run is done: the trees go while the pair is stored (unless kept)
    removing = o.keep ? null : ws.removeSoon();
    const failures = [b1, p1]
      .filter(s => s.summary.status !== 'complete')
      .map(s => s.summary.error)
      .filter(Boolean);
    if (result.status === 'incomplete' && failures.length) result.reason = `${result.reason}: ${failures.join('; ')}`;
    const kept = Boolean(o.keep);
    const pair = writeTx(db, () => {
      const id = insertPair(db, {
        instance,
        label: o.label ?? null,
        test: o.test,
        buggyTrace: b1.id,
        patchedTrace: p1.id,
        buggyRerun: b2?.id ?? null,
        patchedRerun: p2?.id ?? null,
        trajectory: o.trajectory ?? null,
        changes,
        patch: diff,
        workspace: {
          ...ws.describe,
          kept,
          buggyDir: ws.buggy,
          patchedDir: ws.patched,
          python: o.python,
          sandbox: runner.confinement.label,
          sandboxPolicy: runner.policy,
          seed: seedOf(o.seed),
          confirmation,
          values:
            planned.mode === 'planned' ? {mode: 'planned', frames: planned.frames, valued: planned.valued} : planned,
          focus: plan,
          ...(hypothesis.mode !== 'off'
            ? {hypothesis: {mode: hypothesis.mode, falsifying: hypothesis.falsifying ?? null, note: hypothesis.note}}
            : {}),
        },
      });
      const deltaId = saveDelta(db, b1.id, p1.id, id, result);
      return {id, deltaId};
    });
    finished = true;
    const nondeterministic = [...nondet.variables].map(k => k.split('\u0000').join(':'));
    return {
      pair: pair.id,
      delta: {...result, id: pair.deltaId},
      buggy: {trace: b1.id, rerun: b2?.id ?? null, summary: b1.summary, ms: b1.ms},
      patched: {trace: p1.id, rerun: p2?.id ?? null, summary: p1.summary, ms: p1.ms},
      changes,
      patch: diff,
      focus: plan,
      hypothesis: {mode: hypothesis.mode, falsifying: hypothesis.falsifying ?? null, note: hypothesis.note},
      workspace: {buggy: ws.buggy, patched: ws.patched, kept},
      nondeterministic,
      sandbox: runner.confinement.label,
      confirmation,
      values: planned.mode === 'planned' ? {mode: 'planned', frames: planned.frames, valued: planned.valued} : planned,
    };
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    if (!finished) {
      // interrupted or failed half-way: the store goes back to how it was
      discardTraces(db, ctx.rows);
    }
    forgetTraces(db.name, ctx.rows);
    forget(scratch);
    if (o.keep && finished) ws.keep();
    else if (removing) await removing;
    else ws.cleanup();
  }
}

export {PythonError};
