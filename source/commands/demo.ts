import {buildDemo, demoIsCurrent} from '../services/demo.js';
import {COMMON_OPTIONS, EXIT, parse, printJson} from './args.js';

export const BUILD_DEMO_HELP = `Usage: deltalens build-demo [--force] [--json]

Build the bundled demo database (sample-data/demo.db) from sample-data/. Commands build it on
first use; this rebuilds it on demand (--force even when it is up to date).`;

/** Builds the demo database when a command is about to read it and it is missing or stale. */
export function ensureDemo<T extends {path: string; demo: boolean}>(target: T): T {
  if (target.demo && !demoIsCurrent()) {
    if (process.stderr.isTTY) process.stderr.write('building the demo database…\n');
    buildDemo();
  }
  return target;
}

export function runBuildDemo(argv: string[]): number {
  const {values} = parse(argv, {...COMMON_OPTIONS, force: {type: 'boolean'}}, false);
  if (values.help) {
    console.log(BUILD_DEMO_HELP);
    return EXIT.ok;
  }
  const fresh = !values.force && demoIsCurrent();
  const report = fresh ? null : buildDemo();
  if (values.json) printJson({built: !fresh, trajectories: report?.added.length ?? null});
  else console.log(fresh ? 'demo database is up to date' : `demo database built: ${report!.added.length} trajectories`);
  return EXIT.ok;
}
