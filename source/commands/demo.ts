import {closedPipe, progressOnStderr, say, warn} from './output.js';
import {
  buildDemo,
  buildDemoQuick,
  demoState,
  finishDemo,
  startDemoFinisher,
  sweepDemoLeftovers,
  type DemoState,
} from '../services/demo.js';
import {EXIT, parse, printJson, UsageError} from './args.js';

export const BUILD_DEMO_HELP = `Usage: deltalens build-demo [--force] [--json]
       deltalens build-demo --finish

Build the bundled demo database (sample-data/demo.db) from sample-data/. Commands build it on
first use; this rebuilds it on demand (--force even when it is up to date). It always builds
sample-data/demo.db, or the file $DELTALENS_DEMO_DB names (there is no --db). A build that is
stopped leaves nothing behind; one whose output pipe closes goes on to its end.

The explorer opens on the demo's quick part (the runs, the ExplainBench sample, the hand-written
questions: seconds) and builds its traced part (the demo projects' pairs, built questions and
audits) in the background with --finish, into the same file, its progress in the status line and
its output in sample-data/demo.db.log. Other commands wait for that build to end.

Exit 0 when the demo is built or up to date, 1 when the build failed.`;

/** Waits while another process builds the demo's traced part, saying how far it is. */
async function waitForFinisher(state: DemoState, step?: (message: string) => void): Promise<DemoState> {
  let s = state;
  let said = '';
  while (s.kind === 'finishing') {
    const line = `the demo is being built by process ${s.progress.pid}: ${s.progress.done}/${s.progress.total} ${s.progress.message}`;
    // said when it changes (in a log, a line per step, not one per poll)
    if (line !== said) step?.((said = line));
    await new Promise(r => setTimeout(r, 500));
    s = demoState();
  }
  return s;
}

/** Builds the demo database when a command is about to read it and it is not whole (waits for one being built). */
export async function ensureDemo<T extends {path: string; demo: boolean}>(target: T): Promise<T> {
  if (!target.demo) return target;
  sweepDemoLeftovers();
  const tty = process.stderr.isTTY;
  const progress = progressOnStderr();
  try {
    let state = await waitForFinisher(demoState(), tty ? progress.step : undefined);
    if (state.kind === 'quick') {
      // the quick part is there (the explorer built it): the rest, here
      const r = await finishDemo(
        tty ? s => progress.step(`building the demo's traced part ${s.done}/${s.total}: ${s.message}`) : undefined,
      );
      if (r.status === 'done') for (const problem of r.traceProblems) warn(`deltalens: demo traces: ${problem}`);
      state = await waitForFinisher(demoState(), tty ? progress.step : undefined);
    }
    if (state.kind !== 'full') {
      if (tty)
        process.stderr.write(
          'building the demo database once (trajectories; tracing, questions and audits on the demo projects: about 1½ minutes)…\n',
        );
      const report = await buildDemo(tty ? progress.step : undefined);
      for (const problem of report.traceProblems) warn(`deltalens: demo traces: ${problem}`);
    }
  } finally {
    progress.done();
  }
  return target;
}

/**
 * For the explorer: the demo's quick part built if needed (seconds, in the foreground), and its
 * traced part building in the background. Returns the pid of the process building it, or null
 * when the demo is whole.
 */
export async function ensureDemoQuick(): Promise<number | null> {
  sweepDemoLeftovers();
  let state = demoState();
  if (state.kind === 'full') return null;
  if (state.kind === 'finishing') return state.progress.pid;
  if (state.kind === 'missing' || state.kind === 'interrupted') {
    const progress = progressOnStderr();
    if (process.stderr.isTTY)
      progress.step(
        'building the demo database: its quick part first (seconds), the traced part then in the background…',
      );
    await buildDemoQuick(process.stderr.isTTY ? progress.step : undefined).finally(progress.done);
    state = demoState();
  }
  return state.kind === 'quick' ? startDemoFinisher() : null;
}

export async function runBuildDemo(argv: string[]): Promise<number> {
  if (argv.some(a => a === '--db' || a.startsWith('--db=')))
    throw new UsageError('build-demo always builds sample-data/demo.db (or $DELTALENS_DEMO_DB): it takes no --db');
  const {values} = parse(
    argv,
    {json: {type: 'boolean'}, help: {type: 'boolean', short: 'h'}, force: {type: 'boolean'}, finish: {type: 'boolean'}},
    false,
  );
  if (values.help) {
    say(BUILD_DEMO_HELP);
    return EXIT.ok;
  }
  // the build is the point, not what it prints: a closed pipe does not stop it
  closedPipe.policy = 'keep-going';
  sweepDemoLeftovers();
  if (values.finish) {
    if (values.force || values.json) throw new UsageError('--finish takes no other option');
    let last = '';
    const r = await finishDemo(s => {
      if (s.message !== last) warn(`${new Date().toISOString()} [${s.done}/${s.total}] ${(last = s.message)}`);
    });
    if (r.status === 'busy') say(`the demo's traced part is being built by process ${r.pid}`);
    else if (r.status === 'not-needed') say(`nothing to finish: ${r.why}`);
    else {
      say(`${new Date().toISOString()} demo database whole: ${r.pairs} traced patch pairs`);
      for (const problem of r.traceProblems) say(`  not traced: ${problem}`);
    }
    return EXIT.ok;
  }
  const progress = progressOnStderr();
  // a build running in the background is waited for (then --force builds anew)
  const waited = await waitForFinisher(demoState(), values.json ? undefined : progress.step);
  const fresh = !values.force && waited.kind === 'full';
  const report = fresh ? null : await buildDemo(values.json ? undefined : progress.step).finally(progress.done);
  progress.done();
  if (values.json)
    printJson({
      built: !fresh,
      trajectories: report?.import.added.length ?? null,
      trace_pairs: report?.pairs ?? null,
      trace_problems: report?.traceProblems ?? [],
    });
  else if (fresh) say('demo database is up to date');
  else {
    say(`demo database built: ${report!.import.added.length} trajectories, ${report!.pairs} traced patch pairs`);
    for (const problem of report!.traceProblems) say(`  not traced: ${problem}`);
  }
  return EXIT.ok;
}
