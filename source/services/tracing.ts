/**
 * `deltalens trace`: build the two trees, find what the patch changed, trace the test on
 * each side twice (the second run finds nondeterministic values), store the traces and
 * the delta.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {basename, join} from 'node:path';
import {collectNondeterminism, extractDelta, type DeltaOption, type DeltaResult, type Nondeterminism} from '../core/trace/delta.js';
import {LineMap, type Changes} from '../core/trace/line-map.js';
import type {Db} from '../store/db.js';
import {createTrace, insertPair, saveDelta, StoredTrace, type TraceSummary} from '../store/traces.js';
import {checkPython, PythonError, runPython, type RunResult} from './python.js';
import {ingestTraceFile} from './trace-ingest.js';
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
  /** trace each side a second time to find nondeterministic values (default on) */
  reruns?: boolean;
  deltaOptions?: DeltaOption[];
  /** record state only on call paths to the patch-modified functions (default on) */
  focus?: boolean;
  /** load installed pytest plugins (default on; off starts pytest ~1 s faster) */
  pytestPlugins?: boolean;
  onProgress?: (message: string) => void;
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
}

export class TraceRunError extends Error {}

export async function changesBetween(python: string, buggy: string, patched: string): Promise<{changes: Changes; diff: string}> {
  const r = await runPython(python, ['-m', 'deltatrace', 'changes', '--buggy', buggy, '--patched', patched], {cwd: buggy, timeoutMs: 120_000});
  if (r.exitCode !== 0) throw new TraceRunError(`deltatrace changes failed: ${r.stderr.trim()}`);
  const parsed = JSON.parse(r.stdout) as Changes & {diff: string};
  const {diff, ...changes} = parsed;
  return {changes, diff};
}

export function focusFor(changes: Changes, side: 'buggy' | 'patched'): string[] {
  return changes.functions.filter(f => f.sides.includes(side)).map(f => `${f.file}:${f.qualname}`);
}

async function traceOnce(
  db: Db,
  python: string,
  root: string,
  out: string,
  o: Omit<TracePairOptions, 'focus'> & {side: 'buggy' | 'patched'; run: number; focusList: string[]; instance: string; patch: string | null; onPathFile?: string},
  limits: TraceLimits,
): Promise<{id: number; summary: TraceSummary; run: RunResult}> {
  const args = ['-m', 'deltatrace', 'run', '--root', root, '--out', out, '--max-events', String(limits.maxEvents), '--max-bytes', String(limits.maxBytes)];
  args.push('--timeout', String(Math.max(1, limits.timeoutS - 5)));
  for (const f of o.focusList) args.push('--focus', f);
  if (o.onPathFile && o.focusList.length) args.push('--on-path', o.onPathFile);
  args.push('--', o.test);
  const env: Record<string, string> = o.pytestPlugins === false ? {PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1'} : {};
  const run = await runPython(python, args, {cwd: root, timeoutMs: limits.timeoutS * 1000, signal: o.signal, env});
  const id = createTrace(db, {
    instance: o.instance,
    versionKind: o.side === 'buggy' ? 'buggy' : (o.versionKind ?? 'agent'),
    patch: o.side === 'buggy' ? null : o.patch,
    trajectory: o.side === 'buggy' ? null : (o.trajectory ?? null),
    test: o.test,
    side: o.side,
    run: o.run,
    label: o.label ?? null,
  });
  const summary = ingestTraceFile(db, out, id, {timedOut: run.timedOut, stderr: run.stderr, exitCode: run.exitCode});
  return {id, summary, run};
}

function mergeNondet(a: Nondeterminism, b: Nondeterminism): Nondeterminism {
  return {variables: new Set([...a.variables, ...b.variables]), functions: new Set([...a.functions, ...b.functions])};
}

export async function tracePair(db: Db, spec: WorkspaceSpec, o: TracePairOptions): Promise<TracePairResult> {
  const progress = o.onProgress ?? (() => {});
  const limits = {...DEFAULT_LIMITS, ...o.limits};
  const version = await checkPython(o.python);
  progress(`python ${version} (${o.python})`);
  const ws = await prepareWorkspace(spec);
  const outDir = mkdtempSync(join(tmpdir(), 'deltalens-traces-'));
  try {
    progress(`trees: buggy ${ws.buggy}, patched ${ws.patched}`);
    const {changes, diff} = await changesBetween(o.python, ws.buggy, ws.patched);
    if (!changes.files.length) progress('the two trees are identical: the patch changes nothing');
    const focus = o.focus === false ? {buggy: [], patched: []} : {buggy: focusFor(changes, 'buggy'), patched: focusFor(changes, 'patched')};
    progress(`patch-modified functions: ${changes.functions.map(f => `${f.file}:${f.qualname}`).join(', ') || 'none (tracing everything under the root)'}`);
    const instance = o.instance ?? `local/${basename(spec.kind === 'dirs' ? spec.buggyDir : spec.repo)}`;
    const common = {...o, instance, patch: diff};
    const side = async (which: 'buggy' | 'patched', run: number, onPathFile?: string) => {
      const started = Date.now();
      progress(`tracing ${which} (run ${run})…`);
      const r = await traceOnce(db, o.python, which === 'buggy' ? ws.buggy : ws.patched, join(outDir, `${which}-${run}.jsonl`), {...common, side: which, run, focusList: focus[which], onPathFile}, limits);
      progress(`${which} run ${run}: ${r.summary.status}, test ${r.summary.outcome?.status ?? '?'}, ${r.summary.events} events, ${r.summary.frames} frames (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      return {...r, ms: Date.now() - started};
    };
    const [b1, p1] = await Promise.all([side('buggy', 1), side('patched', 1)]);
    let b2: Awaited<ReturnType<typeof side>> | null = null;
    let p2: Awaited<ReturnType<typeof side>> | null = null;
    // the re-runs reuse the first runs' call paths (no second pre-pass)
    const onPath = (r: typeof b1, which: string): string | undefined => {
      const list = (r.summary.header as {prepass?: {on_path?: unknown}} | null)?.prepass?.on_path;
      if (!Array.isArray(list)) return undefined;
      const file = join(outDir, `${which}-on-path.json`);
      writeFileSync(file, JSON.stringify(list));
      return file;
    };
    if (o.reruns !== false) [b2, p2] = await Promise.all([side('buggy', 2, onPath(b1, 'buggy')), side('patched', 2, onPath(p1, 'patched'))]);

    progress('extracting the delta…');
    const identity = new LineMap(null);
    let nondet: Nondeterminism = {variables: new Set(), functions: new Set()};
    if (b2 && b1.summary.status === 'complete' && b2.summary.status === 'complete') {
      nondet = mergeNondet(nondet, collectNondeterminism(new StoredTrace(db, b1.id), new StoredTrace(db, b2.id), identity));
    }
    if (p2 && p1.summary.status === 'complete' && p2.summary.status === 'complete') {
      nondet = mergeNondet(nondet, collectNondeterminism(new StoredTrace(db, p1.id), new StoredTrace(db, p2.id), identity));
    }
    const options = [...(o.deltaOptions ?? [])];
    const result = extractDelta({buggy: new StoredTrace(db, b1.id), patched: new StoredTrace(db, p1.id), map: new LineMap(changes), options, nondeterminism: nondet});
    const failures = [b1, p1].filter(s => s.summary.status !== 'complete').map(s => s.summary.error).filter(Boolean);
    if (result.status === 'incomplete' && failures.length) result.reason = `${result.reason}: ${failures.join('; ')}`;
    const pair = db.transaction(() => {
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
        workspace: {...ws.describe, kept: Boolean(o.keep) || !ws.temporary, buggyDir: ws.buggy, patchedDir: ws.patched, python: o.python},
      });
      const deltaId = saveDelta(db, b1.id, p1.id, id, result);
      return {id, deltaId};
    }).immediate();
    const nondeterministic = [...nondet.variables].map(k => k.split('\u0000').join(':'));
    return {
      pair: pair.id,
      delta: {...result, id: pair.deltaId},
      buggy: {trace: b1.id, rerun: b2?.id ?? null, summary: b1.summary, ms: b1.ms},
      patched: {trace: p1.id, rerun: p2?.id ?? null, summary: p1.summary, ms: p1.ms},
      changes,
      patch: diff,
      focus,
      workspace: {buggy: ws.buggy, patched: ws.patched, kept: Boolean(o.keep) || !ws.temporary},
      nondeterministic,
    };
  } finally {
    rmSync(outDir, {recursive: true, force: true});
    if (!o.keep) ws.cleanup();
  }
}

export {PythonError};
