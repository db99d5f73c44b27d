/**
 * Watch expressions that recorded state cannot answer: re-run the test on each side with
 * `deltatrace eval`, stopping at the same execution of the same line (timing: after it
 * finished), each expression evaluated in isolation. The trees are rebuilt from how the
 * pair was made (ready directories are used as they are).
 */
import {existsSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {forget, makeTempDir} from './leftovers.js';
import {pythonRunner, runEval, type PythonRunner} from './python.js';
import {seedArgs} from './tracing.js';
import type {SandboxPolicy} from './sandbox.js';
import type {StepperModel, WatchValue} from './stepper.js';
import {prepareWorkspace, type Workspace, type WorkspaceSpec} from './workspace.js';

interface EvalOutput {
  reached: boolean;
  hits_seen: number;
  results: {expr: string; value?: unknown; error?: {type: string; message?: string}}[];
  outcome: {status: string; error?: string};
}

function specFrom(ws: Record<string, unknown> | null): WorkspaceSpec | null {
  if (!ws) return null;
  if (ws.kind === 'dirs' && typeof ws.buggy === 'string' && typeof ws.patched === 'string')
    return {kind: 'dirs', buggyDir: ws.buggy, patchedDir: ws.patched};
  if (ws.kind === 'revs' && typeof ws.repo === 'string')
    return {kind: 'revs', repo: ws.repo, buggy: String(ws.buggy), patched: String(ws.patched)};
  if (ws.kind === 'patch' && typeof ws.repo === 'string' && typeof ws.patch === 'string') {
    return {
      kind: 'patch',
      repo: ws.repo,
      patch: ws.patch,
      ...(ws.buggy && ws.buggy !== 'files' ? {buggy: String(ws.buggy)} : {}),
      copy: ws.buggy === 'files',
    };
  }
  return null;
}

interface LiveOptions {
  /** 'off' when the explorer was opened with --no-sandbox; otherwise the pair's own trust
   * decides (the bundled demo's pairs run confined when bwrap is there, else as they are) */
  sandbox?: 'off';
  passEnv?: string[];
  timeoutS?: number;
  onWarning?: (message: string) => void;
}

export async function liveWatch(
  model: StepperModel,
  row: number,
  exprs: string[],
  o: LiveOptions = {},
): Promise<WatchValue[]> {
  const timeoutS = o.timeoutS ?? 120;
  const spec = specFrom(model.pair.workspace);
  const missing = (note: string): WatchValue[] => exprs.map(expr => ({expr, source: 'unavailable', note}));
  if (!spec) return missing('this pair does not say how its trees were made');
  if (spec.kind === 'dirs' && (!existsSync(spec.buggyDir) || !existsSync(spec.patchedDir)))
    return missing('the buggy/patched directories no longer exist');
  let patchDir: string | null = null;
  if (spec.kind === 'patch' && existsSync(spec.repo) && !existsSync(spec.patch) && model.pair.patch) {
    // the patch file was temporary (e.g. a trajectory's patch): the pair keeps the diff
    patchDir = makeTempDir('patch');
    spec.patch = join(patchDir, 'pair.diff');
    writeFileSync(spec.patch, model.pair.patch);
  }
  if (spec.kind === 'patch' && (!existsSync(spec.repo) || !existsSync(spec.patch)))
    return missing('the repository or patch file no longer exists');
  const python = String(model.pair.workspace?.python ?? process.env.DELTALENS_PYTHON ?? 'python3');
  const policy: SandboxPolicy =
    o.sandbox === 'off' ? 'off' : model.pair.workspace?.sandboxPolicy === 'prefer' ? 'prefer' : 'require';
  let runner: PythonRunner;
  let ws: Workspace;
  try {
    runner = await pythonRunner(python, policy, {passEnv: o.passEnv, onWarning: o.onWarning});
    ws = await prepareWorkspace(spec, runner);
  } catch (error) {
    if (patchDir) forget(patchDir);
    return missing(`cannot re-run: ${(error as Error).message}`);
  }
  if (patchDir) forget(patchDir);
  try {
    const side = async (which: 'b' | 'p'): Promise<Map<string, {value?: unknown; error?: string}> | string> => {
      const target = model.evalTarget(row, which);
      if (!target) return 'this row is not a finished line on this side';
      const seed =
        model.pair.workspace && 'seed' in model.pair.workspace ? (model.pair.workspace.seed as number | null) : null;
      const args = [
        '--root',
        which === 'b' ? ws.buggy : ws.patched,
        '--at',
        `${target.file}:${target.line}`,
        '--hit',
        String(target.hit),
        '--timing',
        target.timing,
        ...seedArgs(seed),
      ];
      for (const e of exprs) args.push('--expr', e);
      args.push('--', model.pair.test);
      const tree = which === 'b' ? ws.buggy : ws.patched;
      const r = await runEval<EvalOutput>(runner, args, {
        cwd: tree,
        timeoutMs: timeoutS * 1000,
        writable: [tree],
        testbed: tree,
      });
      if (!r.answer) return r.why === 'timed out' ? `timed out after ${timeoutS} s` : r.why;
      const out = r.answer;
      if (!out.reached)
        return `the re-run reached ${target.file}:${target.line} only ${out.hits_seen} times (not ${target.hit}): the run is not reproducible`;
      return new Map(
        out.results.map(x => [
          x.expr,
          x.error ? {error: `${x.error.type}${x.error.message ? `: ${x.error.message}` : ''}`} : {value: x.value},
        ]),
      );
    };
    const [b, p] = await Promise.all([side('b'), side('p')]);
    return exprs.map(expr => {
      const pick = (s: typeof b) => (typeof s === 'string' ? {error: s} : (s.get(expr) ?? {error: 'no result'}));
      return {expr, source: 'live' as const, buggy: pick(b), patched: pick(p)};
    });
  } finally {
    ws.cleanup();
  }
}
