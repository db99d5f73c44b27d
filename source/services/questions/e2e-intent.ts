/**
 * End-to-end intent (ExplainBench §5.2.2): the fix's test with its expected-behaviour expression
 * masked; distractors are expressions that do not make the test fail before the fix and pass
 * after it — AST mutations of the expected expression (offline) or the generating model's —
 * each validated by running the test with it on both versions, picked by MMR.
 */
import {join} from 'node:path';
import {labelled} from '../../core/questions/choices.js';
import {intentPrompt} from '../../core/questions/generator-prompts.js';
import type {Question} from '../../core/questions/model.js';
import type {E2eIntentProvenance} from '../../core/questions/provenance.js';
import {judgeVariant, outcomeText, type TestOutcome} from '../../core/questions/outcome.js';
import {seedOf} from '../../core/questions/prompt.js';
import {mmr, MMR_LAMBDA, seededOrder} from '../../core/questions/select.js';
import {numbered, testPathOf} from '../../core/questions/test-source.js';
import {codePointDistance} from './distance.js';
import {DISTRACTORS} from './options.js';
import type {BuildSession} from './session.js';
import {writeTest} from './test-files.js';
import {questionInputs, type Validated} from './validate.js';

/** Offline candidates validated per question (each costs a test run per version). */
const MUTANTS = 12;

export async function buildE2eIntent(s: BuildSession, v: Validated): Promise<void> {
  const {o, step, ws, file, testText, fix, seed, before, fixed, base} = v;
  const id = `${o.instance}/built/e2e_intent`;
  const inputs = questionInputs(v, 'e2e_intent', fix);
  s.progress('e2e_intent', 'finding the expected expression');
  const exp = s.unchanged('e2e_intent', id, inputs)
    ? null
    : await step.parseOnly<{
        expr: string;
        start: number;
        end: number;
        line: number;
        marked: boolean;
        form: string;
        function_line: number;
        first_line: number;
        masked: string;
        names: string[];
      }>(['expected', '--file', join(ws.patched, file), '--function', testPathOf(o.test)], ws.patched);
  if (!exp) s.progress('e2e_intent', 'unchanged: built before from the same inputs');
  else if ('error' in exp) s.exclude('e2e_intent', `no expected expression: ${exp.error}`);
  else {
    let candidates: {text: string; how: string}[];
    let mut: {mutants: {text: string; how: string}[]} | {error: string};
    let unusable: {text: string; reason: string}[] = [];
    if (o.generator) {
      s.progress('e2e_intent', `asking ${o.generator.name} for distractors`);
      const asked = await step.candidatesFromModel('e2e_intent', intentPrompt(exp.masked, exp.expr), ws.patched);
      unusable = asked.dropped;
      candidates = asked.ok.filter(c => c.text !== exp.expr);
      mut = {mutants: candidates};
    } else {
      mut = await step.parseOnly<{mutants: {text: string; how: string}[]}>(
        ['mutants', '--expr', exp.expr, '--limit', String(MUTANTS), ...exp.names.flatMap(n => ['--name', n])],
        ws.patched,
      );
      candidates = 'error' in mut ? [] : mut.mutants;
    }
    const chars = [...testText];
    const substituted = (text: string) => chars.slice(0, exp.start).join('') + text + chars.slice(exp.end).join('');
    const validated: {
      text: string;
      how: string;
      buggy: TestOutcome;
      fixed: TestOutcome;
      kept: boolean;
      reason: string;
    }[] = [];
    for (const [i, c] of candidates.entries()) {
      s.progress('e2e_intent', `validating candidate ${i + 1}/${candidates.length}: ${c.text}`);
      const variant = substituted(c.text);
      writeTest(ws.buggy, file, variant);
      writeTest(ws.patched, file, variant);
      const [b, f] = await Promise.all([step.outcome(ws.buggy), step.outcome(ws.patched)]);
      const {reproduces, broken} = judgeVariant(b, f);
      const reason = reproduces
        ? 'dropped: it makes the test fail before the fix and pass after it, so it is also a correct answer'
        : broken
          ? `dropped: the test does not run with it (${outcomeText(b)}${b.error ? ` ${b.error}` : ''})`
          : 'kept: the test with it does not fail-before-and-pass-after';
      validated.push({text: c.text, how: c.how, buggy: b, fixed: f, kept: !reproduces && !broken, reason});
    }
    writeTest(ws.buggy, file, testText);
    writeTest(ws.patched, file, testText);
    const kept = validated.filter(v => v.kept);
    const pick = mmr(
      exp.expr,
      kept.map(v => v.text),
      DISTRACTORS,
      codePointDistance,
    );
    const distractors = pick.picked.map(i => kept[i]!);
    if (!distractors.length)
      s.exclude(
        'e2e_intent',
        `no distractor survived validation (${candidates.length} candidates${'error' in mut ? `: ${mut.error}` : ''}${unusable.length ? `; ${unusable.length} unusable: ${unusable[0]!.reason}` : ''})`,
      );
    else {
      const order = seededOrder(
        [
          {text: exp.expr, role: 'correct' as const},
          ...distractors.map(d => ({text: d.text, role: 'distractor' as const})),
        ],
        seedOf(seed, id),
      );
      const choices = labelled(order);
      const q: Question = {
        id,
        instance: o.instance,
        type: 'e2e_intent',
        trajectory: null,
        agent: null,
        context: {test: numbered(exp.masked, exp.first_line)},
        question: 'Which expression should replace [[MASKED]]?',
        choices,
        answer: [choices.find(c => c.role === 'correct')!.label],
      };
      const validations = Object.fromEntries(
        choices
          .map(c => [
            c.label,
            c.role === 'correct'
              ? {expected: true, line: exp.line, marked: exp.marked, buggy: before, fixed}
              : c.role === 'distractor'
                ? validated.find(v => v.text === c.text)
                : null,
          ])
          .filter(([, v]) => v),
      );
      s.save(
        q,
        {
          ...base,
          inputs,
          expected: {expr: exp.expr, line: exp.line, marked: exp.marked, form: exp.form},
          candidates: [...validated, ...unusable.map(u => ({...u, kept: false}))],
          ...(o.generator
            ? {model: {name: o.generator.name, calls: step.log.filter(l => l.stage === 'e2e_intent')}}
            : {}),
          selection: {method: 'MMR', lambda: MMR_LAMBDA, picked: distractors.map(d => d.text), scores: pick.scores},
        } satisfies E2eIntentProvenance,
        validations,
      );
    }
  }
}
