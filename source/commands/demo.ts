import {closedPipe, progressOnStderr, say, warn} from './output.js';
import {buildDemo, demoIsCurrent, sweepDemoLeftovers} from '../services/demo.js';
import {EXIT, parse, printJson, UsageError} from './args.js';

export const BUILD_DEMO_HELP = `Usage: deltalens build-demo [--force] [--json]

Build the bundled demo database (sample-data/demo.db) from sample-data/. Commands build it on
first use; this rebuilds it on demand (--force even when it is up to date). It always builds
sample-data/demo.db, or the file $DELTALENS_DEMO_DB names (there is no --db). A build that is stopped leaves nothing behind; one whose
output pipe closes goes on to its end. Exit 0 when the demo is built or up to date, 1 when the
build failed.`;

/** Builds the demo database when a command is about to read it and it is missing or stale. */
export async function ensureDemo<T extends {path: string; demo: boolean}>(target: T): Promise<T> {
  if (target.demo) sweepDemoLeftovers();
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
  if (argv.some(a => a === '--db' || a.startsWith('--db='))) throw new UsageError('build-demo always builds sample-data/demo.db (or $DELTALENS_DEMO_DB): it takes no --db');
  const {values} = parse(argv, {json: {type: 'boolean'}, help: {type: 'boolean', short: 'h'}, force: {type: 'boolean'}}, false);
  if (values.help) {
    say(BUILD_DEMO_HELP);
    return EXIT.ok;
  }
  // the build is the point, not what it prints: a closed pipe does not stop it
  closedPipe.policy = 'keep-going';
  sweepDemoLeftovers();
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
