import {existsSync, readdirSync, statSync} from 'node:fs';
import {basename, dirname, join} from 'node:path';
import {lookupResolution, resolutionTable, type ResolutionTable} from '../core/trajectory/resolution.js';
import {parseJson, readUtf8File} from './text-file.js';

/**
 * Finds resolved/unresolved status for a trajectory file: first the `--results` files the
 * user named, then files beside it — `<id>.report.json`, a harness summary or `results.json`
 * in its folder or the folder above, `logs/<id>/report.json` and `results/results.json` of a
 * SWE-bench/experiments run folder. Each candidate file is read at most once per import.
 */

const MAX_RESULT_BYTES = 64 * 1024 * 1024;
const MAX_PARENT_JSON = 50;
const RESULT_NAME = /result|report|summary|eval/i;

interface Resolution {
  resolved: boolean;
  source: string;
  /** The run (folder or configuration) the status was keyed under, if any. */
  run: string | null;
  /** Named with --results: it overrides what the trajectory file itself says. */
  explicit: boolean;
}

export class ResolutionFinder {
  private tables = new Map<string, ResolutionTable | null>();
  private dirListings = new Map<string, string[]>();

  constructor(private readonly explicit: string[]) {
    for (const file of explicit) {
      const table = this.table(file, true);
      if (!table)
        throw new Error(
          `${file}: not a results file (expected resolved_ids/unresolved_ids, report.json or results.json)`,
        );
    }
  }

  find(trajectoryPath: string, instance: string, runRoot: string | null): Resolution | null {
    const dir = dirname(trajectoryPath);
    const runNames = [basename(dir), basename(dirname(dir))];
    if (runRoot) runNames.unshift(basename(runRoot));
    for (const file of [...this.explicit, ...this.besides(trajectoryPath, instance, runRoot)]) {
      const table = this.table(file, false);
      if (!table) continue;
      const resolved = lookupResolution(table, instance, runNames);
      if (resolved !== null) {
        const run = runNames.find(name => table.byRun.get(name)?.has(instance)) ?? null;
        return {resolved, source: file, run, explicit: this.explicit.includes(file)};
      }
    }
    return null;
  }

  private besides(path: string, instance: string, runRoot: string | null): string[] {
    const dir = dirname(path);
    const stem = basename(path).replace(/(\.traj)?(\.json)?$/, '');
    const candidates = [
      join(dir, `${stem}.report.json`),
      join(dir, `${instance}.report.json`),
      join(dir, 'report.json'),
    ];
    if (runRoot) {
      candidates.push(join(runRoot, 'logs', instance, 'report.json'), join(runRoot, 'results', 'results.json'));
    }
    candidates.push(...this.listing(dir, true), ...this.listing(dirname(dir), false));
    return [...new Set(candidates)].filter(file => file !== path && existsSync(file));
  }

  /** JSON files in a folder that may hold results; in the trajectory's own folder only by name. */
  private listing(dir: string, byNameOnly: boolean): string[] {
    const key = `${dir}\0${byNameOnly}`;
    let files = this.dirListings.get(key);
    if (!files) {
      try {
        files = readdirSync(dir)
          .filter(
            name => name.endsWith('.json') && !name.endsWith('.traj.json') && (!byNameOnly || RESULT_NAME.test(name)),
          )
          .map(name => join(dir, name))
          .filter(file => statSync(file).isFile());
        // A parent folder full of JSON is a corpus, not a run folder with one summary in it.
        if (!byNameOnly && files.length > MAX_PARENT_JSON)
          files = files.filter(file => RESULT_NAME.test(basename(file)));
      } catch {
        files = [];
      }
      this.dirListings.set(key, files);
    }
    return files;
  }

  private table(file: string, mustRead: boolean): ResolutionTable | null {
    if (this.tables.has(file)) return this.tables.get(file)!;
    let table: ResolutionTable | null = null;
    try {
      if (statSync(file).size <= MAX_RESULT_BYTES) table = resolutionTable(parseJson(readUtf8File(file).text));
    } catch (error) {
      if (mustRead) throw new Error(`${file}: ${(error as Error).message}`);
    }
    this.tables.set(file, table);
    return table;
  }
}
