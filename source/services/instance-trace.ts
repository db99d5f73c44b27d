/**
 * `trace --instance ID --repo CLONE (--gold | --prediction NAME | --trajectory N | --patch FILE)`:
 * the trees from the instance's record (its base commit with its test patch; that plus the chosen
 * patch) and its FAIL_TO_PASS tests, run the way SWE-bench runs that repository's tests.
 */
import {execa} from 'execa';
import {createHash} from 'node:crypto';
import {existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs';
import {homedir} from 'node:os';
import {join} from 'node:path';
import {patchFiles} from '../core/instances/record.js';
import {testRun, TestIdError, type TestRun} from '../core/instances/runner.js';
import type {Db} from '../store/db.js';
import {getInstance} from '../store/instances.js';
import {findPrediction, getTrajectory} from '../store/trajectories.js';
import type {PythonRunner} from './python.js';
import {copyTree, prepareWorkspace, type WorkspaceSpec} from './workspace.js';

export class InstanceTraceError extends Error {}

interface PatchChoice {
  gold?: boolean;
  prediction?: string;
  trajectory?: number;
  patchFile?: string;
}

interface InstancePlan {
  spec: Extract<WorkspaceSpec, {kind: 'instance'}>;
  label: string;
  trajectory: number | null;
  versionKind: 'gold' | 'agent';
  tests: (TestRun & {id: string})[];
}

/** Whether an instance has the record these traces need (a base commit, its tests). */
export function hasRecord(db: Db, id: string): boolean {
  const d = getInstance(db, id);
  return Boolean(d?.baseCommit && d.testPatch !== null && d.failToPass.length);
}

/** Functions named `name` at module level in a file: the test patch adds it, or the file has it at the base commit. */
async function definers(repo: string, base: string, testPatch: string, name: string): Promise<string[]> {
  const out: string[] = [];
  const chunks = testPatch.split(/^(?=diff --git )/m);
  for (const file of patchFiles(testPatch).filter(f => f.endsWith('.py'))) {
    const chunk = chunks.find(c => c.includes(`+++ b/${file}`)) ?? '';
    if (new RegExp(`^\\+def ${name}\\(`, 'm').test(chunk)) {
      out.push(file);
      continue;
    }
    const shown = await execa('git', ['show', `${base}:${file}`], {cwd: repo, reject: false, timeout: 60_000});
    // a tree without its git history (an image's /testbed copied): the file as it is there
    let text = shown.failed ? null : String(shown.stdout);
    if (text === null) {
      try {
        text = readFileSync(join(repo, file), 'utf8');
      } catch {
        text = null;
      }
    }
    if (text !== null && new RegExp(`^def ${name}\\(`, 'm').test(text)) out.push(file);
  }
  return out;
}

export async function planInstanceTrace(
  db: Db,
  o: {instance: string; repo: string; imageTestbed?: string; choice: PatchChoice; test?: string; allTests?: boolean},
): Promise<InstancePlan> {
  const d = getInstance(db, o.instance);
  if (!d) throw new InstanceTraceError(`no instance ${o.instance} in the store (deltalens instances import FILE)`);
  if (!d.baseCommit || d.testPatch === null || !d.failToPass.length) {
    throw new InstanceTraceError(
      `${o.instance} has no dataset record (base commit, test patch, FAIL_TO_PASS): import its row with deltalens instances import FILE`,
    );
  }
  const chosen = [
    o.choice.gold && 'gold',
    o.choice.prediction !== undefined && 'prediction',
    o.choice.trajectory !== undefined && 'trajectory',
    o.choice.patchFile && 'patch',
  ].filter(Boolean);
  if (chosen.length !== 1)
    throw new InstanceTraceError(
      `say which patch to trace on ${o.instance}: one of --gold, --prediction NAME, --trajectory ID, --patch FILE`,
    );
  let patch: string;
  let label: string;
  let trajectory: number | null = null;
  let versionKind: 'gold' | 'agent' = 'agent';
  if (o.choice.gold) {
    if (!d.goldPatch) throw new InstanceTraceError(`${o.instance}'s record has no gold patch`);
    patch = d.goldPatch;
    label = 'gold';
    versionKind = 'gold';
  } else if (o.choice.prediction !== undefined) {
    const found = findPrediction(db, o.instance, o.choice.prediction);
    if (found === null)
      throw new InstanceTraceError(
        `no prediction of ${o.choice.prediction} for ${o.instance} (deltalens instances import PREDICTIONS_FILE)`,
      );
    const t = getTrajectory(db, found)!;
    if (!t.patch?.trim())
      throw new InstanceTraceError(`${o.choice.prediction}'s prediction for ${o.instance} has no patch`);
    patch = t.patch;
    trajectory = t.id;
    label = `prediction of ${o.choice.prediction}`;
  } else if (o.choice.trajectory !== undefined) {
    const t = getTrajectory(db, o.choice.trajectory);
    if (!t) throw new InstanceTraceError(`no trajectory with id ${o.choice.trajectory}`);
    if (t.instance !== o.instance)
      throw new InstanceTraceError(`trajectory ${t.id} is a run on ${t.instance}, not ${o.instance}`);
    if (!t.patch?.trim()) throw new InstanceTraceError(`trajectory ${t.id} has no patch to trace`);
    patch = t.patch;
    trajectory = t.id;
    label = `trajectory #${t.id} (${t.agent})`;
  } else {
    try {
      patch = readFileSync(o.choice.patchFile!, 'utf8');
    } catch (error) {
      throw new InstanceTraceError(
        `--patch ${o.choice.patchFile}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      );
    }
    label = `patch ${o.choice.patchFile}`;
  }
  const ids = o.test ? [o.test] : o.allTests ? d.failToPass : [d.failToPass[0]!];
  const tests: InstancePlan['tests'] = [];
  for (const id of ids) {
    const named = /^test\w*$/.test(id.trim()) ? await definers(o.repo, d.baseCommit, d.testPatch, id.trim()) : [];
    try {
      tests.push({id, ...testRun(d.repo, id, () => named)});
    } catch (error) {
      if (error instanceof TestIdError) throw new InstanceTraceError(`${o.instance}: ${error.message}`);
      throw error;
    }
  }
  return {
    spec: {
      kind: 'instance',
      repo: o.repo,
      instance: o.instance,
      base: d.baseCommit,
      testPatch: d.testPatch,
      patch,
      patchLabel: label,
      ...(o.imageTestbed ? {imageTestbed: o.imageTestbed} : {}),
    },
    label,
    trajectory,
    versionKind,
    tests,
  };
}

/**
 * An instance's buggy tree (its base commit with its test patch) kept in deltalens' cache
 * (`~/.cache/deltalens/instances/ID-HASH/buggy`), with its gold patch beside it: the input of a
 * question build or an audit, which keep the tree's path so that their questions can be checked
 * again later. Made once (exported from the clone, the test patch applied in the sandbox), then
 * reused while the record's base and test patch stay the same.
 */
export async function instanceBaseTree(
  db: Db,
  id: string,
  repo: string,
  runner: PythonRunner,
): Promise<{dir: string; goldPatch: string; reused: boolean}> {
  const d = getInstance(db, id);
  if (!d?.baseCommit || d.testPatch === null)
    throw new InstanceTraceError(
      `${id} has no dataset record (base commit, test patch): import its row with deltalens instances import FILE`,
    );
  const key = createHash('sha256').update(`${d.baseCommit}\0${d.testPatch}`).digest('hex').slice(0, 12);
  const home = join(
    process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
    'deltalens',
    'instances',
    `${id.replace(/[^\w.-]+/g, '_')}-${key}`,
  );
  const dir = join(home, 'buggy');
  const goldPatch = join(home, 'gold.diff');
  if (existsSync(dir) && existsSync(goldPatch)) return {dir, goldPatch, reused: true};
  const ws = await prepareWorkspace(
    {kind: 'instance', repo, instance: id, base: d.baseCommit, testPatch: d.testPatch, patch: '', patchLabel: 'none'},
    runner,
  );
  try {
    mkdirSync(home, {recursive: true});
    const partial = `${dir}.partial-${process.pid}`;
    rmSync(partial, {recursive: true, force: true});
    copyTree(ws.buggy, partial);
    renameSync(partial, dir);
    writeFileSync(goldPatch, d.goldPatch ?? '');
  } finally {
    ws.cleanup();
  }
  return {dir, goldPatch, reused: false};
}

/**
 * The pytest node id of an instance's test, for what runs tests under pytest (building
 * questions, the audit's runs): a node id as it is, a bare sympy name as FILE::name. Django's and
 * unittest's "test_x (module.Class)" are refused with the reason.
 */
export async function pytestIdOf(db: Db, id: string, repo: string, test: string | undefined): Promise<string> {
  const d = getInstance(db, id);
  if (!d?.baseCommit || d.testPatch === null || !d.failToPass.length)
    throw new InstanceTraceError(`${id} has no dataset record: import its row with deltalens instances import FILE`);
  const wanted = test ?? d.failToPass[0]!;
  const named = /^test\w*$/.test(wanted.trim()) ? await definers(repo, d.baseCommit, d.testPatch, wanted.trim()) : [];
  let run: TestRun;
  try {
    run = testRun(d.repo, wanted, () => named);
  } catch (error) {
    if (error instanceof TestIdError) throw new InstanceTraceError(`${id}: ${error.message}`);
    throw error;
  }
  if (run.mode === 'function') return run.target;
  if (run.mode === 'pytest' || run.mode === 'script') return run.target;
  throw new InstanceTraceError(
    `${id}'s test ${wanted} runs under ${run.how}, and building questions and auditing run pytest tests: give --test with a pytest node id`,
  );
}
