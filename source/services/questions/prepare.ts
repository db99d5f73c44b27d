/**
 * The first stage of a questions build: the test the build runs, in the two trees. A test the
 * model writes (--generate-pbt) or one given apart (--pbt) joins both trees; the fix's test file
 * is written into the buggy tree, as SWE-bench applies the test patch; a property-based test gets
 * its plan (which examples every run draws).
 */
import {readFileSync} from 'node:fs';
import {dirname, resolve} from 'node:path';
import type {TestOutcome} from '../../core/questions/outcome.js';
import type {PbtAttempt} from '../../core/questions/provenance.js';
import {testFileOf} from '../../core/questions/test-source.js';
import {forget, makeTempDir} from '../leftovers.js';
import type {PythonRunner} from '../python.js';
import {prepareHypothesis, usesHypothesis, type HypothesisPlan} from '../tracing.js';
import type {Workspace} from '../workspace.js';
import type {BuildOptions} from './options.js';
import {generatePbt} from './pbt.js';
import {Step} from './runs.js';
import type {BuildSession} from './session.js';
import {PBT_FILE, readTestFile, writeFixedTestFile, writeTest} from './test-files.js';

/** What every later stage reads: the options (the test replaced by a test given apart), the trees, the test's text. */
export interface Prepared {
  o: BuildOptions;
  runner: PythonRunner;
  step: Step;
  ws: Workspace;
  /** the test file (relative to the trees' root) and its text as the fix has it */
  file: string;
  testText: string;
  /** the fix as it enters the questions' input hashes */
  fix: string;
  seed: number;
  /** a test given apart: its text as written into the trees, and its module-level calls moved */
  pbtText: string | null;
  pbtGuarded: number[];
  pbtAttempts: PbtAttempt[];
  /** the runs of the model's test made while it was chosen (they are its validation runs) */
  pbtRuns: [TestOutcome[], TestOutcome[]] | null;
  hypothesis: HypothesisPlan | null;
  /** a folder to forget when the build ends (the hypothesis search's database) */
  leftover: string | null;
}

/** The test in the two trees, or null when the build cannot go on (excluded, with the reason). */
export async function prepareTest(
  s: BuildSession,
  o: BuildOptions,
  runner: PythonRunner,
  ws: Workspace,
): Promise<Prepared | null> {
  let step = new Step(runner, o);
  let pbtAttempts: PbtAttempt[] = [];
  let pbtDir: string | null = null;
  let pbtRuns: [TestOutcome[], TestOutcome[]] | null = null;
  if (o.generatePbt && o.generator) {
    const made = await generatePbt(s.db, o, step, ws);
    pbtAttempts = made.attempts;
    if (made.file) pbtDir = dirname(made.file);
    const used = made.attempts.at(-1);
    if (used?.buggy && used.fixed) pbtRuns = [used.buggy, used.fixed];
    if (!made.file) {
      s.exclude(
        'instance',
        `no bug-reproducing test from ${o.generator.name} in ${made.attempts.length} attempt(s): ${made.attempts.map(a => a.reason).join('; ')}`,
      );
      return null;
    }
    o = {...o, pbt: made.file};
  }
  let pbtText: string | null = null;
  let pbtGuarded: number[] = [];
  if (o.pbt) {
    // the given test file joins both trees under a name of its own
    let text = readFileSync(o.pbt, 'utf8');
    pbtText = text;
    // a script that calls its test at module level (as many of ExplainBench's do) would run it
    // while pytest imports the file: those calls move under if __name__ == '__main__'
    const guarded = await step.parseOnly<{text: string; moved: number[]}>(
      ['guard-script', '--file', resolve(o.pbt)],
      dirname(resolve(o.pbt)),
    );
    if (!('error' in guarded) && guarded.moved.length) {
      text = guarded.text;
      pbtText = text;
      pbtGuarded = guarded.moved;
      s.progress(
        'validate',
        `the test script calls its test at module level (line ${guarded.moved.join(', ')}): moved under if __name__ == '__main__' so that pytest can import it`,
      );
    }
    const fn = /^(?:async\s+)?def\s+(test\w*)\s*\(/m.exec(text)?.[1];
    if (!fn) {
      s.exclude('instance', `--pbt ${o.pbt}: no test_… function in it`);
      return null;
    }
    for (const tree of [ws.buggy, ws.patched]) writeTest(tree, PBT_FILE, text);
    o = {...o, test: `${PBT_FILE}::${fn}`};
    step = new Step(runner, o);
    if (pbtDir) forget(pbtDir);
  }
  const file = testFileOf(o.test);
  const testText = readTestFile(ws.patched, file);
  if (testText === null) {
    s.exclude('instance', `the test file ${file} is not in the fixed tree`);
    return null;
  }
  writeFixedTestFile(ws.buggy, testText, file);
  const fix = o.goldPatch
    ? readFileSync(o.goldPatch, 'utf8')
    : o.fixedRev
      ? `rev:${o.buggyRev}..${o.fixedRev}`
      : `dir:${o.fixedDir}`;

  // A property-based test (hypothesis): one untraced search on the buggy side for a failing
  // example; the traced pair and the local evaluations replay only that example, and the test's
  // runs draw the same derandomized examples on both sides.
  let hypothesis: HypothesisPlan | null = null;
  let leftover: string | null = null;
  if (usesHypothesis(ws.buggy, o.test)) {
    s.progress('validate', 'the test uses hypothesis: looking for a failing example on the buggy side (not traced)');
    leftover = makeTempDir('hypothesis');
    try {
      hypothesis = await prepareHypothesis(runner, ws.buggy, o.test, leftover, {seed: o.seed, timeoutS: o.timeoutS});
    } catch (error) {
      forget(leftover);
      throw error;
    }
    s.progress('validate', hypothesis.note);
    step.hypothesis = {mode: 'derandomize', note: 'the same derandomized examples on both sides'};
  }
  return {
    o,
    runner,
    step,
    ws,
    file,
    testText,
    fix,
    seed: o.seed ?? 0,
    pbtText,
    pbtGuarded,
    pbtAttempts,
    pbtRuns,
    hypothesis,
    leftover,
  };
}
