import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {
  buildLens,
  referenceSteps,
  referenceTree,
  type LensOptions,
  type LensResult,
  type LensRun,
} from '../core/lens/build.js';
import {followPath, type PtaNode} from '../core/lens/pta.js';
import type {ActionState} from '../core/lens/state.js';
import {withScopes, type Scope} from '../core/lens/scope.js';
import type {Db} from '../store/db.js';
import {applyStoredScopes, lensScoreOf, loadLensRuns, saveLensResult, scopesOf} from '../store/lens.js';
import {actionTextReader, getTrajectory} from '../store/trajectories.js';

interface LensBuildReport extends LensResult {
  /** steps whose stage came from a person's correction instead of the labeller */
  overridden_steps: number;
  /** runs whose steps carry no labels (databases from before labels; `lens label` fixes them) */
  unlabelled_runs: number[];
}

/** Loads the stored runs, scores them (core/lens/build.ts) and stores the result in place of the last build. */
export function runLensBuild(db: Db, options: LensOptions = {}): LensBuildReport {
  const {runs, overridden} = loadLensRuns(db, options.instance);
  if (options.instance && !runs.length) throw new RangeError(`no stored trajectory of instance "${options.instance}"`);
  return buildAndSave(db, runs, overridden, options);
}

function buildAndSave(db: Db, runs: LensRun[], overridden: number, options: LensOptions): LensBuildReport {
  const result = buildLens(runs, options);
  saveLensResult(db, result, scopesOf(runs));
  return {...result, overridden_steps: overridden, unlabelled_runs: runs.filter(r => !r.steps.length).map(r => r.id)};
}

/**
 * Function/class scopes for the runs of instances whose source is at hand (`sources`: instance →
 * checkout): `deltatrace scopes` reads the files the runs touch with Python's ast (no code runs),
 * then each state gets the scope of its line range, or for an edit the scope of the text it
 * replaces. States change in place. The checkout is the task's starting tree, so lines the run
 * itself shifted can land in the wrong scope.
 */
export async function resolveScopes(
  db: Db,
  runs: LensRun[],
  sources: Map<string, string>,
  python = process.env.DELTALENS_PYTHON ?? 'python3',
): Promise<{states: number; problems: string[]}> {
  const {scopesIn} = await import('./scopes.js');
  const problems: string[] = [];
  let states = 0;
  const actionText = actionTextReader(db);
  for (const [instance, dir] of sources) {
    const own = runs.filter(r => r.instance === instance);
    const files = [...new Set(own.flatMap(r => r.steps.flatMap(s => s.state.files.map(f => f.path))))].filter(
      p => !p.startsWith('/') && !p.includes('..') && p.endsWith('.py'),
    );
    if (!own.length || !files.length) continue;
    try {
      const found = await scopesIn(dir, files, python);
      if (found.problem) {
        problems.push(`${instance}: ${found.problem}`);
        continue;
      }
      const known = new Map<string, {scopes: Scope[]; text: string}>();
      for (const [path, scopes] of found.scopes) known.set(path, {scopes, text: readFileSync(join(dir, path), 'utf8')});
      for (const run of own) {
        for (const step of run.steps) {
          const next = withScopes(
            step.state,
            step.state.kind === 'edit' || step.state.kind === 'create' ? actionText(run.id, step.idx) : null,
            known,
          );
          if (next !== step.state) {
            step.state = next;
            states += 1;
          }
        }
      }
    } catch (error) {
      problems.push(`${instance}: ${(error as Error).message}`);
    }
  }
  return {states, problems};
}

/** lens build with scopes where the source is at hand (see resolveScopes). */
export async function runLensBuildWithSources(
  db: Db,
  options: LensOptions,
  sources: Map<string, string>,
): Promise<LensBuildReport & {scopes: {states: number; problems: string[]}}> {
  const {runs, overridden} = loadLensRuns(db, options.instance);
  if (options.instance && !runs.length) throw new RangeError(`no stored trajectory of instance "${options.instance}"`);
  const scopes = sources.size ? await resolveScopes(db, runs, sources) : {states: 0, problems: []};
  return {...buildAndSave(db, runs, overridden, options), scopes};
}

/** A run's reference (its PTA) and the run's path through it: what the explorer's P shows. */
export interface PtaView {
  trajectory: number;
  instance: string;
  agent: string;
  resolved: boolean | null;
  root: PtaNode;
  refRuns: number[];
  excluded: number[];
  /** nodes the run follows, and the index (among its reference states) where it leaves */
  path: Set<number>;
  leftAt: number | null;
  /** the run's reference states with their step indices */
  states: {idx: number; state: ActionState}[];
}

/**
 * The reference tree a run was scored against (leave-one-out: the task's other passing runs,
 * without the Lucky runs lens build left out, with the scopes it placed the states in) and the
 * run's path through it. null: no such trajectory, or it is not among its task's lens runs.
 */
export function referenceView(db: Db, id: number): PtaView | null {
  const t = getTrajectory(db, id);
  if (!t) return null;
  const {runs} = loadLensRuns(db, t.instance);
  applyStoredScopes(db, runs);
  const run = runs.find(r => r.id === id);
  if (!run) return null;
  const excluded = lensScoreOf(db, id)?.reference.excluded_lucky ?? [];
  const tree = referenceTree({runs}, id, new Set(excluded));
  const states = referenceSteps(run.steps);
  const follow = followPath(
    tree.root,
    states.map(s => s.state),
  );
  return {
    trajectory: id,
    instance: t.instance,
    agent: t.agent,
    resolved: t.resolved,
    root: tree.root,
    refRuns: tree.runs,
    excluded,
    path: new Set(follow.path.map(n => n.id)),
    leftAt: follow.leftAt,
    states: states.map(s => ({idx: s.idx, state: s.state})),
  };
}
