import {progressOnStderr, say, warn} from './output.js';
import {buildDemo, demoIsCurrent} from '../services/demo.js';
import {COMMON_OPTIONS, EXIT, parse, printJson} from './args.js';

export const BUILD_DEMO_HELP = `Usage: deltalens build-demo [--force] [--json]

Build the bundled demo database (sample-data/demo.db) from sample-data/. Commands build it on
first use; this rebuilds it on demand (--force even when it is up to date).`;

/** Builds the demo database when a command is about to read it and it is missing or stale. */
export async function ensureDemo<T extends {path: string; demo: boolean}>(target: T): Promise<T> {
  if (target.demo && !demoIsCurrent()) {
    const tty = process.stderr.isTTY;
    if (tty) process.stderr.write('building the demo database once (trajectories; tracing, questions and audits on the demo projects: about 1½ minutes)…\n');
    const progress = progressOnStderr();
    const report = await buildDemo(tty ? progress.step : undefined).finally(progress.done);
    for (const problem of report.traceProblems) warn(`deltalens: demo traces: ${problem}`);
  }
  return target;
}

export async function runBuildDemo(argv: string[]): Promise<number> {
  const {values} = parse(argv, {...COMMON_OPTIONS, force: {type: 'boolean'}}, false);
  if (values.help) {
    say(BUILD_DEMO_HELP);
    return EXIT.ok;
  }
  const fresh = !values.force && demoIsCurrent();
  const progress = progressOnStderr();
  const report = fresh ? null : await buildDemo(values.json ? undefined : progress.step).finally(progress.done);
  if (values.json) printJson({built: !fresh, trajectories: report?.import.added.length ?? null, trace_pairs: report?.pairs ?? null, trace_problems: report?.traceProblems ?? []});
  else if (fresh) say('demo database is up to date');
  else {
    say(`demo database built: ${report!.import.added.length} trajectories, ${report!.pairs} traced patch pairs`);
    for (const problem of report!.traceProblems) say(`  not traced: ${problem}`);
  }
  return EXIT.ok;
}
