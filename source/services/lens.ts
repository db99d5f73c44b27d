import {buildLens, type LensOptions, type LensResult} from '../core/lens/build.js';
import type {Db} from '../store/db.js';
import {loadLensRuns, saveLensResult} from '../store/lens.js';

export interface LensBuildReport extends LensResult {
  /** steps whose stage came from a person's correction instead of the labeller */
  overridden_steps: number;
  /** runs whose steps carry no labels (databases from before labels; `lens label` fixes them) */
  unlabelled_runs: number[];
}

/** Loads the stored runs, scores them (core/lens/build.ts) and stores the result in place of the last build. */
export function runLensBuild(db: Db, options: LensOptions = {}): LensBuildReport {
  const {runs, overridden} = loadLensRuns(db, options.instance);
  if (options.instance && !runs.length) throw new RangeError(`no stored trajectory of instance "${options.instance}"`);
  const unlabelled = runs.filter(r => !r.steps.length).map(r => r.id);
  const result = buildLens(runs, options);
  saveLensResult(db, result);
  return {...result, overridden_steps: overridden, unlabelled_runs: unlabelled};
}
