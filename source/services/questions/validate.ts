/**
 * The validation runs (ExplainBench §5.2.1): the test must fail on the buggy version and pass on
 * the fixed one, the same way twice on each. What passes becomes every question's common
 * provenance: the build's inputs (enough to make the trees again), the runs, the seed.
 */
import {resolve} from 'node:path';
import {failsBeforePassesAfter, outcomeText, sameOutcome, type TestOutcome} from '../../core/questions/outcome.js';
import {clearExclusion} from '../../store/questions.js';
import type {BuildInputs, CommonProvenance} from '../../core/questions/provenance.js';
import {BUILDER_VERSION} from './options.js';
import type {Prepared} from './prepare.js';
import {inputsHash, type BuildSession} from './session.js';
import type {QuestionType} from '../../core/questions/model.js';

/** A test that reproduces the bug: its runs, the outcome before and after the fix, and the provenance every question shares. */
export interface Validated extends Prepared {
  runs: {buggy: TestOutcome[]; fixed: TestOutcome[]};
  before: TestOutcome;
  fixed: TestOutcome;
  base: CommonProvenance;
}

/**
 * The hash of a question's inputs (it is built again only when they change, or with --force):
 * its type, the builder's version, the generator, the trees and the test as the fix has it, the
 * change it asks about (the fix, or an agent's patch) and the seed. End-to-end effect questions
 * leave the generator out (as they always have, so their stored hashes stay valid — though then a
 * change of --model does not build them again: a known gap).
 */
export function questionInputs(
  v: Validated,
  type: QuestionType,
  change: string,
  o: {generator?: boolean} = {},
): string {
  return inputsHash(
    type,
    String(BUILDER_VERSION),
    ...(o.generator === false ? [] : [v.o.generator?.name ?? 'offline']),
    v.o.instance,
    v.o.buggyDir,
    v.o.buggyRev ?? '',
    v.o.test,
    v.testText,
    change,
    String(v.seed),
  );
}

export async function validateTest(s: BuildSession, p: Prepared): Promise<Validated | null> {
  const {o, step, ws, hypothesis} = p;
  s.progress('validate', `running ${o.test} twice on each version`);
  // the two versions run side by side (separate trees); each twice in a row — a test the
  // model wrote was run so while it was being chosen
  let [buggyRuns, fixedRuns] = p.pbtRuns ?? (await Promise.all([step.twice(ws.buggy), step.twice(ws.patched)]));
  if (!p.pbtRuns && hypothesis?.mode === 'replay' && !failsBeforePassesAfter(buggyRuns![0]!, fixedRuns![0]!)) {
    // the derandomized examples miss the bug the search found: every run replays that example
    s.progress(
      'validate',
      'the derandomized examples do not reproduce the bug: running the failing example the search found',
    );
    step.hypothesis = hypothesis;
    [buggyRuns, fixedRuns] = await Promise.all([step.twice(ws.buggy), step.twice(ws.patched)]);
  }
  const runs = {buggy: buggyRuns!, fixed: fixedRuns!};
  if (!sameOutcome(runs.buggy[0]!, runs.buggy[1]!) || !sameOutcome(runs.fixed[0]!, runs.fixed[1]!)) {
    s.exclude(
      'instance',
      `flaky test: ${!sameOutcome(runs.buggy[0]!, runs.buggy[1]!) ? `on the buggy version "${outcomeText(runs.buggy[0]!)}" then "${outcomeText(runs.buggy[1]!)}"` : `on the fixed version "${outcomeText(runs.fixed[0]!)}" then "${outcomeText(runs.fixed[1]!)}"`}`,
    );
    return null;
  }
  const [before, fixed] = [runs.buggy[0]!, runs.fixed[0]!];
  if (!failsBeforePassesAfter(before, fixed)) {
    const why =
      before.status === 'error' && fixed.status === 'error' && before.line === null
        ? `the test does not run on either version (${fixed.error ?? outcomeText(fixed)})`
        : before.status === 'passed'
          ? 'the test passes on the buggy version'
          : `the test does not pass on the fixed version (${outcomeText(fixed)}${fixed.error ? ` ${fixed.error}` : ''})`;
    s.exclude('instance', `not bug-reproducing: ${why}`);
    return null;
  }
  clearExclusion(s.db, o.instance, 'instance');
  return {...p, runs, before, fixed, base: commonProvenance(p, runs)};
}

/** What a re-validation of an edited question needs to make the same trees again, the runs, how examples were drawn. */
function commonProvenance(p: Prepared, runs: Validated['runs']): CommonProvenance {
  const {o, hypothesis} = p;
  const build: BuildInputs = {
    buggy_dir: resolve(o.buggyDir),
    ...(o.buggyRev ? {buggy_rev: o.buggyRev} : {}),
    ...(o.fixedDir ? {fixed_dir: resolve(o.fixedDir)} : o.fixedRev ? {fixed_rev: o.fixedRev} : {gold_patch: p.fix}),
    ...(p.pbtText !== null ? {pbt: p.pbtText} : {}),
    ...(p.pbtGuarded.length ? {pbt_module_calls_moved: p.pbtGuarded} : {}),
    test: o.test,
    test_text: p.testText,
    timeout_s: o.timeoutS,
  };
  return {
    origin: 'built' as const,
    generator: o.generator ? `model ${o.generator.name}` : 'offline',
    builder_version: BUILDER_VERSION,
    seed: p.seed,
    test: o.test,
    build,
    test_validation: runs,
    ...(p.pbtAttempts.length ? {pbt_generation: p.pbtAttempts} : {}),
    ...(hypothesis
      ? {
          hypothesis: {
            search: hypothesis.mode === 'replay' ? 'a failing example found' : 'no failing example saved',
            falsifying: hypothesis.falsifying ?? null,
            note: hypothesis.note,
            test_runs:
              p.step.hypothesis!.mode === 'replay'
                ? 'the failing example only'
                : 'the same derandomized examples on both sides',
            traced_and_evaluated_on:
              hypothesis.mode === 'replay'
                ? 'the failing example only'
                : 'the same derandomized examples on both sides',
          },
        }
      : {}),
  };
}
