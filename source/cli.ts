import {EXIT, UsageError} from './commands/args.js';
import {BUILD_DEMO_HELP, runBuildDemo} from './commands/demo.js';
import {EXPLORE_HELP} from './commands/explore-help.js';
import {IMPORT_HELP, runImport} from './commands/import.js';
import {NotFound, runShow, SHOW_HELP} from './commands/show.js';
import {runTrajectories, TRAJECTORIES_HELP} from './commands/trajectories.js';
import {runTrace, TRACE_HELP} from './commands/trace.js';
import {DELTA_HELP, runDelta} from './commands/delta.js';
import {runTraces, TRACES_HELP} from './commands/traces.js';
import {REPORT_HELP, runReport} from './commands/report.js';
import {runScore, SCORE_HELP} from './commands/score.js';
import {LENS_HELP, runLens} from './commands/lens.js';
import {EXPLANATIONS_HELP, QUESTIONS_HELP, runExplanations, runQuestions} from './commands/questions.js';
import {MigrationError} from './store/db.js';

/** Ink and React take ~0.6 s to load; only the explorer needs them. */
async function runExplore(argv: string[]): Promise<number> {
  const {runExplore: run} = await import('./commands/explore.js');
  return run(argv);
}

type Command = {run: (argv: string[]) => number | Promise<number>; help: string; summary: string};

const COMMANDS: Record<string, Command> = {
  explore: {run: runExplore, help: EXPLORE_HELP, summary: 'open the explorer (the default)'},
  import: {run: runImport, help: IMPORT_HELP, summary: 'import trajectories from files or folders'},
  trajectories: {run: runTrajectories, help: TRAJECTORIES_HELP, summary: 'list trajectories'},
  show: {run: runShow, help: SHOW_HELP, summary: 'print one trajectory (show trajectory ID)'},
  trace: {run: runTrace, help: TRACE_HELP, summary: 'trace a test on buggy and patched code; print the delta'},
  delta: {run: runDelta, help: DELTA_HELP, summary: 'recompute the delta of two stored traces'},
  traces: {run: runTraces, help: TRACES_HELP, summary: 'list traced patch pairs and their deltas'},
  questions: {run: runQuestions, help: QUESTIONS_HELP, summary: 'import, export or list questions (JSONL)'},
  explanations: {run: runExplanations, help: EXPLANATIONS_HELP, summary: 'list explanations'},
  score: {run: runScore, help: SCORE_HELP, summary: 'answer questions from explanations with a QA model'},
  report: {run: runReport, help: REPORT_HELP, summary: 'explanation scores per agent (ExplainBench Tables 3–6)'},
  lens: {run: runLens, help: LENS_HELP, summary: 'AgentLens intent labels (lens label)'},
  'build-demo': {run: runBuildDemo, help: BUILD_DEMO_HELP, summary: 'build the bundled demo database'},
};

export const MAIN_HELP = `Usage: deltalens [COMMAND] [options]

Explore coding-agent trajectories, execution traces and explanation questions.
Without a command, opens the explorer.

Commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(14)}${command.summary}`)
  .join('\n')}
  help COMMAND  show a command's help

Every command takes --help, --db FILE and (where it prints data) --json.
Exit codes: 0 ok, 1 failed, 2 usage error.`;

/** `deltalens report | head` closes the pipe early: that is not an error. */
function quietOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      throw error;
    });
  }
}

export async function main(argv: string[]): Promise<number> {
  quietOnClosedPipe();
  const [first, ...rest] = argv;
  try {
    if (first === undefined || first.startsWith('-')) {
      if (first === '--help' || first === '-h') {
        console.log(MAIN_HELP);
        return EXIT.ok;
      }
      if (first === '--version') {
        console.log('deltalens 0.1.0');
        return EXIT.ok;
      }
      return await runExplore(argv);
    }
    if (first === 'help') {
      const topic = rest[0];
      if (topic === undefined) console.log(MAIN_HELP);
      else if (COMMANDS[topic]) console.log(COMMANDS[topic].help);
      else throw new UsageError(`no such command "${topic}"`);
      return EXIT.ok;
    }
    const command = COMMANDS[first];
    if (!command) throw new UsageError(`no such command "${first}" (see deltalens --help)`);
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`deltalens: ${error.message}`);
      return EXIT.usage;
    }
    if (error instanceof NotFound || error instanceof MigrationError) {
      console.error(`deltalens: ${error.message}`);
      return EXIT.failed;
    }
    console.error(`deltalens: ${(error as Error).stack ?? error}`);
    return EXIT.failed;
  }
}
