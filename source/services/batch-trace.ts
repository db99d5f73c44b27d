/**
 * `deltalens batch trace`: many SWE-bench instances traced on this machine — each the way
 * `trace --instance ID --repo CLONE` traces one — by N workers at once (each a pair: two sandboxed
 * runs side by side), every pair stored by this one process as it ends. Resumable: a pair already
 * stored for the same instance, patch and test with a delta that is not incomplete is skipped.
 * A job that fails (no clone, a patch that does not apply, a crashed run) is reported and the
 * batch goes on.
 */
import {existsSync, statSync} from 'node:fs';
import {join} from 'node:path';
import type {Db} from '../store/db.js';
import type {DeltaResult} from '../core/trace/delta.js';
import {getInstance} from '../store/instances.js';
import {storedPairOf} from '../store/traces.js';
import {InstanceTraceError, planInstanceTrace} from './instance-trace.js';
import {Interrupted, tracePair, type TracePairOptions} from './tracing.js';

/** Which patch of an instance: its gold patch, or a model's prediction (imported). */
export interface BatchChoice {
  instance: string;
  gold?: boolean;
  prediction?: string;
}

type PairOptions = Omit<
  TracePairOptions,
  'test' | 'mode' | 'instance' | 'label' | 'trajectory' | 'versionKind' | 'signal' | 'onProgress'
>;

export interface BatchJobResult {
  instance: string;
  patch: string;
  /** the test as the instance names it (null: the job failed before its tests were known) */
  test: string | null;
  status: 'traced' | 'skipped' | 'failed';
  pair: number | null;
  delta: {
    status: string;
    kind: string | null;
    function: string | null;
    file: string | null;
    line: number | null;
  } | null;
  seconds: number;
  error: string | null;
}

interface BatchTraceResult {
  jobs: BatchJobResult[];
  traced: number;
  /** of the traced: pairs whose delta is incomplete (a run missing, crashed, timed out, cut short) */
  incomplete: number;
  skipped: number;
  failed: number;
  seconds: number;
  /** pairs traced per hour of wall time (skipped ones not counted) */
  pairsPerHour: number | null;
  workers: number;
  interrupted: boolean;
}

/** A repository's clone under `dir`: DIR/owner__name, DIR/name or DIR/owner/name. */
function cloneIn(dir: string, repo: string): string | null {
  const name = repo.split('/')[1];
  const candidates = [join(dir, repo.replace('/', '__')), ...(name ? [join(dir, name)] : []), join(dir, repo)];
  return candidates.find(c => existsSync(c) && statSync(c).isDirectory()) ?? null;
}

/**
 * What tracing one instance's patch takes: its record, the clone of its repository under
 * `repoDir`, its tests and trees (planInstanceTrace); or why it cannot be traced, in one line.
 */
export async function planChoice(
  db: Db,
  choice: BatchChoice,
  repoDir: string,
  allTests?: boolean,
): Promise<{plan: Awaited<ReturnType<typeof planInstanceTrace>>} | {error: string}> {
  const record = getInstance(db, choice.instance);
  if (!record?.repo) return {error: 'no record of this instance (with its repository) in the store'};
  const repo = cloneIn(repoDir, record.repo);
  if (!repo)
    return {
      error: `no clone of ${record.repo} in ${repoDir} (looked for ${record.repo.replace('/', '__')}, ${record.repo.split('/')[1] ?? record.repo})`,
    };
  try {
    return {
      plan: await planInstanceTrace(db, {
        instance: choice.instance,
        repo,
        choice: {gold: choice.gold, prediction: choice.prediction},
        allTests,
      }),
    };
  } catch (error) {
    if (error instanceof InstanceTraceError) return {error: error.message};
    throw error;
  }
}

const deltaOf = (d: Pick<DeltaResult, 'status' | 'kind' | 'function' | 'file' | 'line'>): BatchJobResult['delta'] => ({
  status: d.status,
  kind: d.kind ?? null,
  function: d.function ?? null,
  file: d.file ?? null,
  line: d.line ?? null,
});

const patchName = (c: BatchChoice) => (c.gold ? 'gold' : `prediction of ${c.prediction}`);

export async function batchTrace(
  db: Db,
  o: {
    choices: BatchChoice[];
    repoDir: string;
    workers: number;
    allTests?: boolean;
    /** trace again a pair stored with an incomplete delta (a run that timed out or crashed) */
    retryIncomplete?: boolean;
    pair: PairOptions;
    signal?: AbortSignal;
    /** each job as it starts and ends, with how many of the instances are done */
    onJob?: (
      done: number,
      total: number,
      job: BatchJobResult | {instance: string; patch: string; started: true},
    ) => void;
  },
): Promise<BatchTraceResult> {
  const started = performance.now();
  const results: BatchJobResult[] = [];
  let next = 0;
  let interrupted = false;
  // instances whose every job ended (with --all-tests an instance has several)
  let instancesDone = 0;
  const finish = (r: BatchJobResult, last = true) => {
    results.push(r);
    if (last) instancesDone += 1;
    o.onJob?.(instancesDone, o.choices.length, r);
  };
  const runOne = async (choice: BatchChoice) => {
    const t0 = performance.now();
    const base = {instance: choice.instance, patch: patchName(choice), pair: null, delta: null};
    const failed = (error: string, test: string | null = null): BatchJobResult => ({
      ...base,
      test,
      status: 'failed',
      seconds: (performance.now() - t0) / 1000,
      error,
    });
    const planned = await planChoice(db, choice, o.repoDir, o.allTests);
    if ('error' in planned) return finish(failed(planned.error));
    const {plan} = planned;
    for (const [i, test] of plan.tests.entries()) {
      const last = i === plan.tests.length - 1;
      const t1 = performance.now();
      const done = storedPairOf(db, choice.instance, plan.label, test.target, {complete: Boolean(o.retryIncomplete)});
      if (done !== null) {
        // with the stored delta, so that the table of a batch run again is whole
        const {pair, delta} = done;
        finish({...base, test: test.id, status: 'skipped', pair, delta: deltaOf(delta), seconds: 0, error: null}, last);
        continue;
      }
      o.onJob?.(instancesDone, o.choices.length, {instance: choice.instance, patch: base.patch, started: true});
      try {
        const r = await tracePair(db, plan.spec, {
          ...o.pair,
          test: test.target,
          mode: test.mode,
          instance: choice.instance,
          label: plan.label,
          trajectory: plan.trajectory,
          versionKind: plan.versionKind,
          signal: o.signal,
        });
        finish(
          {
            ...base,
            test: test.id,
            status: 'traced',
            pair: r.pair,
            delta: deltaOf(r.delta),
            seconds: (performance.now() - t1) / 1000,
            error: null,
          },
          last,
        );
      } catch (error) {
        if (error instanceof Interrupted || o.signal?.aborted) throw new Interrupted('interrupted');
        finish(failed((error as Error).message.split('\n')[0]!, test.id), last);
      }
    }
  };
  const worker = async () => {
    while (next < o.choices.length && !o.signal?.aborted) {
      const choice = o.choices[next++]!;
      try {
        await runOne(choice);
      } catch (error) {
        if (error instanceof Interrupted) {
          interrupted = true;
          return;
        }
        throw error;
      }
    }
  };
  await Promise.all(Array.from({length: Math.max(1, Math.min(o.workers, o.choices.length || 1))}, worker));
  if (o.signal?.aborted) interrupted = true;
  const seconds = (performance.now() - started) / 1000;
  const traced = results.filter(r => r.status === 'traced').length;
  return {
    jobs: results,
    traced,
    incomplete: results.filter(r => r.status === 'traced' && r.delta?.status === 'incomplete').length,
    skipped: results.filter(r => r.status === 'skipped').length,
    failed: results.filter(r => r.status === 'failed').length,
    seconds,
    pairsPerHour: traced && seconds > 0 ? (traced / seconds) * 3600 : null,
    workers: o.workers,
    interrupted,
  };
}
