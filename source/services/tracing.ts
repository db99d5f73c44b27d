/**
 * `deltalens trace`: build the two trees, find what the patch changed, trace the test on
 * each side twice (the second run finds nondeterministic values), store the traces and
 * the delta.
 */
import {writeFileSync} from 'node:fs';
import {basename, join} from 'node:path';
import {confirmationPlan, emptyNondeterminism, extractDelta, planValues, type DeltaOption, type DeltaResult, type Nondeterminism} from '../core/trace/delta.js';
import {LineMap, type Changes} from '../core/trace/line-map.js';
import {writeTx, type Db} from '../store/db.js';
import {rerunNondeterminism} from './delta.js';
import {createTrace, discardTraces, ensureTraceTarget, insertPair, sameControlFlow, saveDelta, StoredTrace, type TraceSummary} from '../store/traces.js';
import {forget, forgetTraces, makeTempDir, rememberTrace} from './leftovers.js';
import {PythonError, pythonRunner, runPython, type PythonRunner, type RunResult} from './python.js';
import type {SandboxPolicy} from './sandbox.js';
import {StreamedTrace} from './trace-ingest.js';
import {prepareWorkspace, type WorkspaceSpec} from './workspace.js';

export interface TraceLimits {
  timeoutS: number;
  maxEvents: number;
  maxBytes: number;
}

export const DEFAULT_LIMITS: TraceLimits = {timeoutS: 300, maxEvents: 5_000_000, maxBytes: 2 * 1024 ** 3};

export interface TracePairOptions {
  python: string;
  test: string;
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
export interface SideResult {
  trace: number;
  rerun: number | null;
  summary: TraceSummary;
  ms: number;
}

export interface TracePairResult {
  pair: number;
  delta: DeltaResult & {id: number};
  buggy: SideResult;
  patched: SideResult;
  changes: Changes;
  patch: string;
  focus: {buggy: string[]; patched: string[]};
  workspace: {buggy: string; patched: string; kept: boolean};
  nondeterministic: string[];
  /** how the runs were confined */
  sandbox: string;
  /** how the second runs confirmed the delta */
  confirmation: Confirmation;
  /** where values were recorded */
  values: {mode: 'planned'; frames: {buggy: number; patched: number}; valued: {buggy: number; patched: number}} | {mode: 'all'; reason: string};
}

/** how the delta was confirmed by second runs (off: --no-rerun; not needed: ∅ or incomplete) */
export type Confirmation = 'off' | 'not needed' | 'at the delta point' | `at the delta point, after ${number} rounds` | `everywhere (${string})`;

/**
 * Targeted confirmation rounds before the re-runs record values wherever run 1 did. One: on a
 * real sympy test whose hashes depend on object addresses, each round found one more varying
 * value and cost more than the whole-plan re-run saves (3 rounds: 47 s against 35 s).
 */
export const CONFIRM_ROUNDS = 1;

type ValuesReport =
  | {mode: 'planned'; skeleton: {buggy: number; patched: number}; frames: {buggy: number; patched: number}; valued: {buggy: number; patched: number}}
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

export async function changesBetween(runner: PythonRunner, buggy: string, patched: string): Promise<{changes: Changes; diff: string}> {
  // ast and difflib only, but over untrusted files: confined, reading both trees
  const r = await runPython(runner, ['-m', 'deltatrace', 'changes', '--buggy', buggy, '--patched', patched], {cwd: buggy, timeoutMs: 120_000, writable: [], readable: [buggy, patched]});
  if (r.exitCode !== 0) throw new TraceRunError(`deltatrace changes failed: ${r.timedOut ? 'timed out after 120 s' : r.stderr.trim()}`);
  const parsed = JSON.parse(r.stdout) as Changes & {diff: string};
  const {diff, ...changes} = parsed;
  return {changes, diff};
}

export function focusFor(changes: Changes, side: 'buggy' | 'patched'): string[] {
  return changes.functions.filter(f => f.sides.includes(side)).map(f => `${f.file}:${f.qualname}`);
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
  o: Omit<TracePairOptions, 'focus'> & {side: 'buggy' | 'patched'; run: number; focusList: string[]; instance: string; patch: string | null; record: 'full' | 'skeleton' | 'plan'; planFile?: string},
  limits: TraceLimits,
): Promise<{id: number; summary: TraceSummary; run: RunResult}> {
  const {db, runner} = ctx;
  // the trace comes back over file descriptor 3 and goes into the store as it arrives
  const args = ['-m', 'deltatrace', 'run', '--root', root, '--out-fd', '3', '--max-events', String(limits.maxEvents), '--max-bytes', String(limits.maxBytes)];
  args.push('--timeout', String(Math.max(1, limits.timeoutS - 5)));
  args.push(...seedArgs(o.seed));
  for (const f of o.focusList) args.push('--focus', f);
  args.push('--record', o.record);
  if (o.planFile) args.push('--plan', o.planFile);
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
      readable: o.planFile ? [o.planFile] : [],
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
  const summary = stream.finish({timedOut: run.timedOut || run.exitCode === 124, stderr: run.stderr, exitCode: run.exitCode});
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
  const runner = await pythonRunner(o.python, o.sandbox ?? 'require', {passEnv: o.passEnv, onWarning: o.onWarning});
  progress(`python ${runner.install.version} (${runner.install.executable}); sandbox: ${runner.confinement.label}`);
  const ctx: RunContext = {db, runner, rows: {traces: [], tests: [], instances: []}};
  const ws = await prepareWorkspace(spec, runner);
  const scratch = makeTempDir('paths');
  // one side failing (or Ctrl+C) stops the other before anything is cleaned up
  const stopAll = new AbortController();
  const onAbort = () => stopAll.abort();
  o.signal?.addEventListener('abort', onAbort);
  let finished = false;
  try {
    progress(`trees: buggy ${ws.buggy}, patched ${ws.patched}`);
    const {changes, diff} = await changesBetween(runner, ws.buggy, ws.patched);
    if (!changes.files.length) progress('the two trees are identical: the patch changes nothing');
    const focus = o.focus === false ? {buggy: [], patched: []} : {buggy: focusFor(changes, 'buggy'), patched: focusFor(changes, 'patched')};
    progress(`patch-modified functions: ${changes.functions.map(f => `${f.file}:${f.qualname}`).join(', ') || 'none (tracing everything under the root)'}`);
    const instance = o.instance ?? `local/${basename(spec.kind === 'dirs' ? spec.buggyDir : spec.repo)}`;
    const target = ensureTraceTarget(db, instance, o.test);
    ctx.rows.tests.push(...target.tests);
    ctx.rows.instances.push(...target.instances);
    rememberTrace(db.name, {traces: [], ...target});
    const common = {...o, instance, patch: diff, signal: stopAll.signal};
    type Run = Awaited<ReturnType<typeof traceOnce>> & {ms: number};
    const side = async (which: 'buggy' | 'patched', run: number, record: 'full' | 'skeleton' | 'plan', planFile?: string): Promise<Run> => {
      const started = Date.now();
      const what = record === 'skeleton' ? 'control flow' : record === 'plan' ? 'planned values' : 'values';
      progress(`tracing ${which} (run ${run}: ${what})…`);
      const r = await traceOnce(ctx, which === 'buggy' ? ws.buggy : ws.patched, {...common, side: which, run, focusList: focus[which], record, planFile}, limits);
      progress(`${which} run ${run}: ${r.summary.status}, test ${r.summary.outcome?.status ?? '?'}, ${r.summary.events} events, ${r.summary.frames} frames (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      return {...r, ms: Date.now() - started};
    };
    // traces this pair does not keep (the skeletons, a plan that did not fit)
    const drop = (ids: number[]) => {
      discardTraces(db, {traces: ids});
      ctx.rows.traces = ctx.rows.traces.filter(id => !ids.includes(id));
      forgetTraces(db.name, {traces: ids});
    };
    const options = [...(o.deltaOptions ?? [])];
    const map = new LineMap(changes);
    let record: 'full' | 'plan' = 'full';
    const planFiles: {buggy?: string; patched?: string; buggyConfirm?: string; patchedConfirm?: string} = {};
    let planned: ValuesReport = {mode: 'all', reason: 'asked for (--values all)'};
    if (o.values !== 'all') {
      // control flow first: where the two runs can differ decides where values are needed
      const [sb, sp] = await both([side('buggy', 0, 'skeleton'), side('patched', 0, 'skeleton')], stopAll);
      const plan = planValues({buggy: new StoredTrace(db, sb.id), patched: new StoredTrace(db, sp.id), map, options});
      for (const which of ['buggy', 'patched'] as const) {
        const file = join(scratch, `${which}-plan.json`);
        writeFileSync(file, JSON.stringify({cuts: plan[which]}));
        planFiles[which] = file;
      }
      record = 'plan';
      planned = {mode: 'planned', skeleton: {buggy: sb.id, patched: sp.id}, frames: {buggy: sb.summary.frames, patched: sp.summary.frames}, valued: plan.valued};
      progress(`values planned in ${plan.valued.buggy} of ${sb.summary.frames} frames (buggy) and ${plan.valued.patched} of ${sp.summary.frames} (patched)`);
    }
    let [b1, p1] = await both([side('buggy', 1, record, planFiles.buggy), side('patched', 1, record, planFiles.patched)], stopAll);
    if (planned.mode === 'planned') {
      const {skeleton} = planned;
      // the valued runs must follow the skeletons; if control flow varies from run to run, the
      // plan does not fit: values everywhere instead (never a wrong ∅)
      if (!sameControlFlow(db, skeleton.buggy, b1.id) || !sameControlFlow(db, skeleton.patched, p1.id)) {
        progress('control flow differs between two runs of one side: tracing with values everywhere instead');
        drop([b1.id, p1.id]);
        planned = {mode: 'all', reason: 'control flow differed between the skeleton and the valued run'};
        record = 'full';
        planFiles.buggy = planFiles.patched = undefined;
        [b1, p1] = await both([side('buggy', 1, 'full'), side('patched', 1, 'full')], stopAll);
      }
      if (planned.mode === 'planned') {
        drop([skeleton.buggy, skeleton.patched]);
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
      [[b1, b] as const, [p1, p] as const].every(([first, second]) => first.summary.status !== 'complete' || second.summary.status !== 'complete' || sameControlFlow(db, first.id, second.id));
    const collect = () => {
      nondet = rerunNondeterminism(db, [
        {first: b1.id, second: b2?.id ?? null},
        {first: p1.id, second: p2?.id ?? null},
      ]);
      return extractDelta({buggy: new StoredTrace(db, b1.id), patched: new StoredTrace(db, p1.id), map, options, nondeterminism: nondet});
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
          writeFileSync(file, JSON.stringify({cuts: confirmationPlan(source, seqs.map(seq => (seq === null ? null : source.itemAt(seq))))}));
          planFiles[which === 'buggy' ? 'buggyConfirm' : 'patchedConfirm'] = file;
        }
        progress(
          rounds === 1
            ? 'confirming the delta: a second run per side with values at the delta point…'
            : `the difference there varies between runs; confirming the next one (round ${rounds} of ${maxRounds})…`,
        );
        if (b2) drop([b2.id, p2!.id]);
        [b2, p2] = await both([side('buggy', 2, 'plan', planFiles.buggyConfirm), side('patched', 2, 'plan', planFiles.patchedConfirm)], stopAll);
        if (o.signal?.aborted) throw new Interrupted('interrupted');
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
          progress(`the difference at the delta point varies between runs: re-running with values wherever the first runs have them…`);
          drop([b2.id, p2.id]);
          [b2, p2] = await both([side('buggy', 2, record, planFiles.buggy), side('patched', 2, record, planFiles.patched)], stopAll);
          if (record === 'plan' && !followsRun1(b2, p2)) {
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
    const failures = [b1, p1].filter(s => s.summary.status !== 'complete').map(s => s.summary.error).filter(Boolean);
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
          values: planned.mode === 'planned' ? {mode: 'planned', frames: planned.frames, valued: planned.valued} : planned,
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
      focus,
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
    else ws.cleanup();
  }
}

export {PythonError};
