/**
 * End-to-end effect (ExplainBench §5.2.3), one question per agent patch: the test's result before
 * the patch and after it, each observed twice; distractors are the test failing at its other
 * assert lines or with other exceptions (offline), or the generating model's failures, picked by
 * MMR; "the test passed" is always offered.
 */
import {readFileSync} from 'node:fs';
import {labelled} from '../../core/questions/choices.js';
import {effectPrompt} from '../../core/questions/generator-prompts.js';
import type {Question} from '../../core/questions/model.js';
import type {E2eEffectProvenance} from '../../core/questions/provenance.js';
import {outcomeText, sameOutcome} from '../../core/questions/outcome.js';
import {seedOf} from '../../core/questions/prompt.js';
import {mmr, MMR_LAMBDA, seededOrder} from '../../core/questions/select.js';
import {
  assertLines,
  functionLines,
  numbered,
  testFunctionContext,
  testPathOf,
} from '../../core/questions/test-source.js';
import {prepareWorkspace, type Workspace} from '../workspace.js';
import {codePointDistance} from './distance.js';
import type {BuildSession} from './session.js';
import {writeFixedTestFile} from './test-files.js';
import {patchedSpec} from './trees.js';
import {questionInputs, type Validated} from './validate.js';

/** Other exceptions a failing test could raise at its failing line (offline distractors). */
const OTHER_EXCEPTIONS = [
  'AssertionError',
  'TypeError',
  'ValueError',
  'AttributeError',
  'KeyError',
  'IndexError',
  'ZeroDivisionError',
  'NameError',
  'RecursionError',
];

export async function buildE2eEffect(s: BuildSession, v: Validated): Promise<void> {
  const {o, step, runner, testText, file, seed, pbtText, runs, before, base} = v;
  const asserts = assertLines(testText, testPathOf(o.test));
  const effectBase = s.parts.done;
  // the test function that runs (its decorators too), numbered as in its file; a test script
  // given apart (--pbt, a model's) is shown whole, as ExplainBench shows its scripts
  const effectContext = pbtText === null ? testFunctionContext(testText, testPathOf(o.test)) : numbered(testText, 1);
  for (const [index, agent] of o.agentPatches.entries()) {
    s.parts.done = effectBase + index;
    const id = `${o.instance}/built/e2e_effect/${agent.name}`;
    const spec = patchedSpec(o, agent.file);
    const patchText = readFileSync(agent.file, 'utf8');
    const inputs = questionInputs(v, 'e2e_effect', patchText, {generator: false});
    if (s.unchanged('e2e_effect', id, inputs)) continue;
    s.progress('e2e_effect', `running the test with ${agent.name}'s patch`);
    let aw: Workspace;
    try {
      aw = await prepareWorkspace(spec, runner);
    } catch (error) {
      s.exclude('e2e_effect', (error as Error).message, agent.name);
      continue;
    }
    try {
      writeFixedTestFile(aw.patched, testText, file);
      const after = [await step.outcome(aw.patched), await step.outcome(aw.patched)];
      if (!sameOutcome(after[0]!, after[1]!)) {
        s.exclude(
          'e2e_effect',
          `flaky after the patch: "${outcomeText(after[0]!)}" then "${outcomeText(after[1]!)}"`,
          agent.name,
        );
        continue;
      }
      const truth = [outcomeText(before), outcomeText(after[0]!)];
      // distractors: the test failing at its other assert lines, or with other exceptions
      const failing = before.line ?? after[0]!.line ?? asserts[0] ?? null;
      const offline = [
        ...asserts
          .filter(l => l !== failing)
          .map(l => ({
            line: l,
            exception: before.exception ?? 'AssertionError',
            how: 'another assert line of the test',
          })),
        ...(failing !== null
          ? OTHER_EXCEPTIONS.filter(e => e !== before.exception && e !== after[0]!.exception).map(e => ({
              line: failing,
              exception: e,
              how: 'another exception at the failing line',
            }))
          : []),
      ];
      // with a model: its alternative failures, each checked to be a line of the test function
      // and an exception name; none usable falls back to the offline ones (and says so)
      let written: typeof offline = [];
      let unusable: {text: string; reason: string}[] = [];
      if (o.generator) {
        s.progress('e2e_effect', `asking ${o.generator.name} for other ways ${o.test} could fail`);
        const asked = await step.failuresFromModel(
          effectPrompt(effectContext, truth[0]!, truth[1]!),
          functionLines(testText, testPathOf(o.test)),
        );
        written = asked.ok;
        unusable = asked.dropped;
      }
      const pool = (written.length ? written : offline)
        .map(d => ({...d, text: outcomeText({status: 'failed', line: d.line, exception: d.exception})}))
        .filter((d, i, all) => !truth.includes(d.text) && all.findIndex(x => x.text === d.text) === i);
      const distinct = [...new Set(truth)];
      // "passed" is always offered: whether an explanation makes a failing patch look like a
      // pass is what overconfidence measures (Table 5)
      const always = distinct.includes('The test passed.')
        ? []
        : [{line: 0, exception: '', how: 'the test passing (always offered)', text: 'The test passed.'}];
      const need = Math.max(0, 4 - distinct.length - always.length);
      const pick = mmr(
        truth.at(-1)!,
        pool.map(p => p.text),
        need,
        codePointDistance,
      );
      const distractors = [...always, ...pick.picked.map(i => pool[i]!)];
      const order = seededOrder(
        [
          ...distinct.map(text => ({text, role: 'correct' as const})),
          ...distractors.map(d => ({text: d.text, role: 'distractor' as const})),
        ],
        seedOf(seed, id),
      );
      const choices = labelled(order);
      const letter = (text: string) => choices.find(c => c.text === text)!.label;
      const q: Question = {
        id,
        instance: o.instance,
        type: 'e2e_effect',
        trajectory: null,
        agent: agent.name,
        context: {test: effectContext},
        question: `What is the result of running the test ${testPathOf(o.test)} (in ${file}) before the patch, and after the patch? Answer two letters: before, after.`,
        choices,
        answer: [letter(truth[0]!), letter(truth[1]!)],
      };
      const validations = Object.fromEntries(
        choices
          .filter(c => c.role !== 'insufficient')
          .map(c => [
            c.label,
            c.role === 'correct'
              ? {
                  observed: [
                    ...(c.text === truth[0] ? ['before the patch (buggy, 2 runs)'] : []),
                    ...(c.text === truth[1] ? [`after ${agent.name}'s patch (2 runs)`] : []),
                  ],
                }
              : {how: distractors.find(d => d.text === c.text)?.how, observed: 'never' as const},
          ]),
      );
      s.save(
        q,
        {
          ...base,
          inputs,
          agent: agent.name,
          patch: agent.file,
          patch_text: patchText,
          before: runs.buggy,
          after,
          candidates: [...pool.map(p => ({text: p.text, how: p.how})), ...unusable.map(u => ({...u, kept: false}))],
          ...(o.generator
            ? {
                model: {
                  name: o.generator.name,
                  calls: step.log.filter(l => l.stage === 'e2e_effect'),
                  ...(written.length ? {} : {fallback: 'no usable failure from the model: the offline distractors'}),
                },
              }
            : {}),
          selection: {method: 'MMR', lambda: MMR_LAMBDA, picked: distractors.map(d => d.text), scores: pick.scores},
        } satisfies E2eEffectProvenance,
        validations,
      );
    } finally {
      aw.cleanup();
    }
  }
  s.parts.done = effectBase + o.agentPatches.length;
}
