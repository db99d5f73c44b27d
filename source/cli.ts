import {closedPipe, say, warn} from './commands/output.js';
import {EXIT, UsageError} from './commands/args.js';
import {StoreError} from './store/db.js';

/**
 * Commands load on demand: each pulls in only what it needs (Ink and React for the explorer,
 * execa for tracing, the openai client for scoring), so every start stays short.
 */
type Loaded = {run: (argv: string[]) => number | Promise<number>; help: string};
type Command = {summary: string; load: () => Promise<Loaded>};

const COMMANDS: Record<string, Command> = {
  explore: {
    summary: 'open the explorer (the default)',
    load: async () => ({
      run: (await import('./commands/explore.js')).runExplore,
      help: (await import('./commands/explore-help.js')).EXPLORE_HELP,
    }),
  },
  import: {
    summary: 'import trajectories from files or folders',
    load: async () => import('./commands/import.js').then(m => ({run: m.runImport, help: m.IMPORT_HELP})),
  },
  trajectories: {
    summary: 'list trajectories',
    load: async () =>
      import('./commands/trajectories.js').then(m => ({run: m.runTrajectories, help: m.TRAJECTORIES_HELP})),
  },
  instances: {
    summary: 'SWE-bench instance records: list them, import dataset rows and predictions',
    load: async () => import('./commands/instances.js').then(m => ({run: m.runInstances, help: m.INSTANCES_HELP})),
  },
  show: {
    summary: 'print one trajectory or instance (show trajectory ID, show instance ID)',
    load: async () => import('./commands/show.js').then(m => ({run: m.runShow, help: m.SHOW_HELP})),
  },
  trace: {
    summary: 'trace a test on buggy and patched code; print the delta',
    load: async () => import('./commands/trace.js').then(m => ({run: m.runTrace, help: m.TRACE_HELP})),
  },
  batch: {
    summary: 'trace many SWE-bench instances with N workers (batch trace)',
    load: async () => import('./commands/batch.js').then(m => ({run: m.runBatch, help: m.BATCH_HELP})),
  },
  delta: {
    summary: 'recompute the delta of two stored traces',
    load: async () => import('./commands/delta.js').then(m => ({run: m.runDelta, help: m.DELTA_HELP})),
  },
  steps: {
    summary: "a traced pair's aligned stepper rows (locals, stacks, what differs)",
    load: async () => import('./commands/steps.js').then(m => ({run: m.runSteps, help: m.STEPS_HELP})),
  },
  traces: {
    summary: 'list traced patch pairs and their deltas; import trace files',
    load: async () => import('./commands/traces.js').then(m => ({run: m.runTraces, help: m.TRACES_HELP})),
  },
  questions: {
    summary: 'build questions from a bug, review and edit them; import, export or list them (JSONL)',
    load: async () => import('./commands/questions.js').then(m => ({run: m.runQuestions, help: m.QUESTIONS_HELP})),
  },
  explanations: {
    summary: 'list or import explanations',
    load: async () =>
      import('./commands/questions.js').then(m => ({run: m.runExplanations, help: m.EXPLANATIONS_HELP})),
  },
  score: {
    summary: 'answer questions from explanations with a QA model',
    load: async () => import('./commands/score.js').then(m => ({run: m.runScore, help: m.SCORE_HELP})),
  },
  report: {
    summary: 'explanation scores per agent (ExplainBench Tables 3–6)',
    load: async () => import('./commands/report.js').then(m => ({run: m.runReport, help: m.REPORT_HELP})),
  },
  audit: {
    summary: 'ExplainBench §6: a model tests an explanation by running code, and refines it',
    load: async () => import('./commands/audit.js').then(m => ({run: m.runAuditCommand, help: m.AUDIT_HELP})),
  },
  reasoning: {
    summary: "DeskCheck: code reasoning in the agents' thoughts, tagged per step, and its report",
    load: async () => import('./commands/reasoning.js').then(m => ({run: m.runReasoning, help: m.REASONING_HELP})),
  },
  lens: {
    summary: 'AgentLens: intent labels, references, quality, tiers, rankings',
    load: async () => import('./commands/lens.js').then(m => ({run: m.runLens, help: m.LENS_HELP})),
  },
  annotate: {
    summary: 'label questions from explanations by hand, blind',
    load: async () => import('./commands/annotate.js').then(m => ({run: m.runAnnotate, help: m.ANNOTATE_HELP})),
  },
  adjudicate: {
    summary: 'resolve conflicting labels',
    load: async () => import('./commands/annotate.js').then(m => ({run: m.runAdjudicate, help: m.ADJUDICATE_HELP})),
  },
  agreement: {
    summary: "agreement on people's labels (Cohen's and Fleiss' κ)",
    load: async () => import('./commands/agreement.js').then(m => ({run: m.runAgreement, help: m.AGREEMENT_HELP})),
  },
  flags: {
    summary: "question flags: people's verdicts and automatic ones",
    load: async () => import('./commands/agreement.js').then(m => ({run: m.runFlags, help: m.FLAGS_HELP})),
  },
  annotations: {
    summary: "export or import people's labels (JSONL, CSV)",
    load: async () => import('./commands/agreement.js').then(m => ({run: m.runAnnotations, help: m.ANNOTATIONS_HELP})),
  },
  'build-demo': {
    summary: 'build the bundled demo database',
    load: async () => import('./commands/demo.js').then(m => ({run: m.runBuildDemo, help: m.BUILD_DEMO_HELP})),
  },
};

async function runExplore(argv: string[]): Promise<number> {
  return (await COMMANDS.explore!.load()).run(argv);
}

const MAIN_HELP = `Usage: deltalens [COMMAND] [options]

Explore coding-agent trajectories, execution traces and explanation questions.
Without a command, opens the explorer.

Commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(14)}${command.summary}`)
  .join('\n')}
  help COMMAND  show a command's help

Every command takes --help, --db FILE and (where it prints data) --json.
Exit codes: 0 ok, 1 failed, 2 usage error.`;

/** `deltalens report | head` closes the pipe early: that is not an error (see closedPipe). */
function quietOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') {
        if (closedPipe.policy === 'keep-going') return;
        process.exit(0);
      }
      throw error;
    });
  }
}

/**
 * What a killed deltalens left (throw-away trees, half-written traces): removed at the next
 * start, whatever the command (services/leftovers.ts).
 */
async function sweepLeftovers(): Promise<void> {
  const {hasRecords, sweepDeadRuns} = await import('./services/leftovers.js');
  if (!hasRecords()) return;
  const {openDb} = await import('./store/db.js');
  const {discardTraces} = await import('./store/traces.js');
  const swept = sweepDeadRuns((path, rows) => {
    const db = openDb(path, {mode: 'write'});
    try {
      return discardTraces(db, rows);
    } finally {
      db.close();
    }
  });
  if (swept.folders.length || swept.traces) {
    warn(
      `deltalens: removed what a killed deltalens run left behind: ${swept.folders.length} temporary folder(s), ${swept.traces} unfinished trace(s)`,
    );
  }
}

export async function main(argv: string[]): Promise<number> {
  quietOnClosedPipe();
  const [first, ...rest] = argv;
  try {
    if (
      first !== 'help' &&
      first !== '--help' &&
      first !== '-h' &&
      first !== '--version' &&
      !rest.includes('--help') &&
      !rest.includes('-h')
    )
      await sweepLeftovers();
    if (first === undefined || first.startsWith('-')) {
      if (first === '--help' || first === '-h') {
        say(MAIN_HELP);
        return EXIT.ok;
      }
      if (first === '--version') {
        say('deltalens 0.1.0');
        return EXIT.ok;
      }
      return await runExplore(argv);
    }
    if (first === 'help') {
      const topic = rest[0];
      if (topic === undefined) say(MAIN_HELP);
      else if (COMMANDS[topic]) say((await COMMANDS[topic].load()).help);
      else throw new UsageError(`no such command "${topic}"`);
      return EXIT.ok;
    }
    const command = COMMANDS[first];
    if (!command) throw new UsageError(`no such command "${first}" (see deltalens --help)`);
    return await (await command.load()).run(rest);
  } catch (error) {
    warn(`deltalens: ${oneLineError(error)}`);
    if (process.env.DELTALENS_DEBUG && error instanceof Error && error.stack) warn(error.stack);
    if (error instanceof UsageError || (error instanceof StoreError && error.usage)) return EXIT.usage;
    return EXIT.failed;
  }
}

/**
 * What went wrong, in one line a user can act on (the stack only with DELTALENS_DEBUG=1): file
 * errors name the file, SQLite's name the database condition.
 */
function oneLineError(error: unknown): string {
  if (!(error instanceof Error)) return String(error).split('\n')[0]!;
  const e = error as Error & {code?: string; path?: string; syscall?: string};
  const file = e.path ? `${e.path}: ` : '';
  switch (e.code) {
    case 'ENOENT':
      return `${file}no such file or directory`;
    case 'EISDIR':
      return `${file}is a folder, not a file`;
    case 'ENOTDIR':
      return `${file}a part of the path is not a folder`;
    case 'EACCES':
    case 'EPERM':
      return `${file}permission denied`;
    case 'ENOSPC':
      return `${file}no space left on the device`;
    case 'SQLITE_BUSY':
    case 'SQLITE_BUSY_SNAPSHOT':
      return 'the database stayed locked by another deltalens process; nothing was lost, run the command again';
    case 'SQLITE_READONLY':
    case 'SQLITE_READONLY_DIRECTORY':
      return 'the database is read-only here: this command writes to it (copy it, or give --db a writable file)';
    case 'SQLITE_FULL':
      return 'the disk is full: the database could not grow';
    case 'SQLITE_CORRUPT':
    case 'SQLITE_NOTADB':
      return `the database file is damaged or not a database (${e.message})`;
    default:
      return e.message.split('\n')[0]!.trim() || e.name;
  }
}
