/**
 * An edited built question, re-validated the way the builder validated the original before
 * anything is saved: every choice whose text or role changed is run again — substituted into
 * the test and run on both versions (end-to-end intent), evaluated at the question's point on
 * both versions (local types) — or checked against the stored runs (end-to-end effect). A
 * choice that fails its check refuses the whole edit, with the reason; the question stays as
 * it was.
 */
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {parseEditDocument} from '../core/questions/edit.js';
import type {Choice, Question} from '../core/questions/model.js';
import type {Db} from '../store/db.js';
import {writeTx} from '../store/db.js';
import {addReview, insertQuestion, questionProvenance} from '../store/questions.js';
import {forget, makeTempDir} from './leftovers.js';
import {pythonRunner} from './python.js';
import {changed, type EvalResult} from '../core/questions/candidates.js';
import {judgeVariant, outcomeText} from '../core/questions/outcome.js';
import {testFileOf, testPathOf} from '../core/questions/test-source.js';
import {evaluateAt, Step} from './questions/runs.js';
import {PBT_FILE, readTestFile, writeFixedTestFile, writeTest} from './questions/test-files.js';
import {fixSpec, patchedSpec} from './questions/trees.js';
import {builtQuestion, ReviewError, type Provenance} from './question-review.js';
import type {SandboxPolicy} from './sandbox.js';
import {prepareWorkspace, type Workspace, type WorkspaceSpec} from './workspace.js';

interface ChoiceCheck {
  label: string;
  text: string;
  role: Choice['role'];
  /** unchanged: as built (its stored validation stands); valid / invalid: checked again now */
  status: 'unchanged' | 'valid' | 'invalid';
  reason: string;
  evidence?: unknown;
}

export interface EditResult {
  saved: boolean;
  question: Question;
  checks: ChoiceCheck[];
  /** why the edit was refused (empty when saved) */
  problems: string[];
  /** nothing but the wording changed: no choice needed a run */
  ran: boolean;
}

interface RevalidateOptions {
  python: string;
  sandbox: SandboxPolicy;
  passEnv?: string[];
  reviewer: string;
  onProgress?: (detail: string) => void;
}

/**
 * Re-validates an edited question and saves it only if every changed choice passes its check;
 * the review records the question as it was and the checks.
 */
export async function saveEditedQuestion(db: Db, id: string, text: string, o: RevalidateOptions): Promise<EditResult> {
  const {q: old, prov, validations} = builtQuestion(db, id);
  const {question: q, note} = parseEditDocument(text, old);
  const progress = o.onProgress ?? (() => {});
  const same = (c: Choice) => old.choices.some(x => x.text === c.text && x.role === c.role);
  const checks: ChoiceCheck[] = q.choices.map(c => ({
    label: c.label,
    text: c.text,
    role: c.role,
    status: 'unchanged',
    reason: 'as built: its stored validation stands',
  }));
  const problems: string[] = [];
  const fail = (c: ChoiceCheck, reason: string, evidence?: unknown) =>
    Object.assign(c, {status: 'invalid', reason, ...(evidence === undefined ? {} : {evidence})});
  const pass = (c: ChoiceCheck, reason: string, evidence?: unknown) =>
    Object.assign(c, {status: 'valid', reason, ...(evidence === undefined ? {} : {evidence})});
  // a choice is checked again when it is new (text or role) — or, for the key, when the answer moved to it
  const keyMoved =
    JSON.stringify(q.answer.map(l => q.choices.find(c => c.label === l)!.text)) !==
    JSON.stringify(old.answer.map(l => old.choices.find(c => c.label === l)!.text));
  const toCheck = checks.filter(
    c =>
      (c.role === 'correct' || c.role === 'distractor' || c.role === 'no_effect') &&
      (!same(c) || (keyMoved && q.answer.includes(c.label))),
  );

  if (q.type === 'e2e_effect') {
    const before = prov.before?.[0];
    const after = prov.after?.[0];
    if (!before || !after)
      throw new ReviewError(`question "${id}" has no stored runs to check an edit against: build it again`);
    const truth = [outcomeText(before), outcomeText(after)];
    const answered = q.answer.map(l => q.choices.find(c => c.label === l)!.text);
    const runs = {before: prov.before!.map(outcomeText), after: prov.after!.map(outcomeText)};
    if (answered[0] !== truth[0] || answered[1] !== truth[1])
      problems.push(`answer: the test's runs say "${truth[0]}" before and "${truth[1]}" after the patch`);
    for (const c of toCheck) {
      if (c.role === 'correct') {
        if (truth.includes(c.text)) pass(c, 'observed in the stored runs', runs);
        else fail(c, 'a correct choice must be an outcome the test had (before or after the patch)', runs);
      } else if (truth.includes(c.text)) fail(c, 'the test really ended so: this distractor would be correct', runs);
      else pass(c, 'never observed in the stored runs (2 before, 2 after the patch)', runs);
    }
  } else if (toCheck.length) {
    if (!prov.build)
      throw new ReviewError(
        `question "${id}" was built before build inputs were stored: build it again (questions build --force) to edit it`,
      );
    const ws = await treesFor(prov, q.type === 'local_effect', o);
    try {
      if (q.type === 'e2e_intent') await checkIntent(ws, prov, toCheck, progress, pass, fail);
      else await checkLocal(ws, prov, q, toCheck, progress, pass, fail);
    } finally {
      ws.cleanup();
    }
  }
  problems.push(...checks.filter(c => c.status === 'invalid').map(c => `${c.label}. ${c.text}: ${c.reason}`));
  const ran = toCheck.length > 0 && q.type !== 'e2e_effect';
  if (problems.length) return {saved: false, question: q, checks, problems, ran};
  if (JSON.stringify(q) === JSON.stringify(old) && !note)
    return {saved: false, question: q, checks, problems: ['unchanged: nothing to save'], ran};
  // the choices keep their stored validation by text; checked ones get this check
  const byText = new Map(old.choices.map(c => [c.text, validations[c.label]]));
  const newValidations = Object.fromEntries(
    checks
      .filter(c => c.role !== 'insufficient')
      .map(c => [
        c.label,
        c.status === 'unchanged'
          ? (byText.get(c.text) ?? null)
          : {edited: true, reason: c.reason, ...(c.evidence === undefined ? {} : {evidence: c.evidence})},
      ])
      .filter(([, v]) => v !== null),
  );
  const stored = questionProvenance(db, id)!.provenance as Record<string, unknown>;
  writeTx(db, () => {
    insertQuestion(db, q, stored, newValidations);
    addReview(db, {question: id, reviewer: o.reviewer, action: 'edited', note, previous: old, validation: checks});
  });
  return {saved: true, question: q, checks, problems: [], ran};
}

type Mark = (c: ChoiceCheck, reason: string, evidence?: unknown) => void;

/** The question's two trees made again from the stored build inputs (the agent's patch for a local effect question). */
async function treesFor(
  prov: Provenance,
  agentSide: boolean,
  o: RevalidateOptions,
): Promise<Workspace & {runner: Awaited<ReturnType<typeof pythonRunner>>; step: Step}> {
  const b = prov.build!;
  const runner = await pythonRunner(o.python, o.sandbox, {passEnv: o.passEnv});
  const scratch = makeTempDir('review');
  const patchFile = (name: string, text: string) => {
    const f = join(scratch, name);
    writeFileSync(f, text);
    return f;
  };
  const from = {buggyDir: b.buggy_dir, buggyRev: b.buggy_rev};
  let spec: WorkspaceSpec;
  if (agentSide) {
    if (prov.patch_text === undefined)
      throw new ReviewError('the agent patch is not stored with this question: build it again');
    spec = patchedSpec(from, patchFile('agent.diff', prov.patch_text));
  } else
    spec = fixSpec({
      ...from,
      fixedDir: b.fixed_dir,
      fixedRev: b.fixed_rev,
      goldPatch: b.fixed_dir || b.fixed_rev ? undefined : patchFile('gold.diff', b.gold_patch ?? ''),
    });
  o.onProgress?.('making the buggy and the other tree again from the build inputs');
  let ws: Workspace;
  try {
    ws = await prepareWorkspace(spec, runner);
  } catch (error) {
    forget(scratch);
    throw new ReviewError(`the question's trees cannot be made again: ${(error as Error).message}`);
  }
  const file = testFileOf(b.test);
  if (b.pbt !== undefined) for (const tree of [ws.buggy, ws.patched]) writeTest(tree, PBT_FILE, b.pbt);
  // the fix's test file on both sides (a question built before it was stored: the fixed tree's)
  const testText = b.test_text ?? (agentSide ? null : readTestFile(ws.patched, file));
  if (testText !== null) for (const tree of [ws.buggy, ws.patched]) writeFixedTestFile(tree, testText, file);
  const step = new Step(runner, {test: b.test, seed: prov.seed ?? 0, timeoutS: b.timeout_s, generator: null});
  return {
    ...ws,
    runner,
    step,
    cleanup: () => {
      ws.cleanup();
      forget(scratch);
    },
  };
}

/** End-to-end intent: each changed choice substituted for the masked expression, the test run on both versions. */
async function checkIntent(
  ws: Awaited<ReturnType<typeof treesFor>>,
  prov: Provenance,
  toCheck: ChoiceCheck[],
  progress: (d: string) => void,
  pass: Mark,
  fail: Mark,
): Promise<void> {
  const test = prov.build!.test;
  const file = testFileOf(test);
  const original = readTestFile(ws.patched, file);
  if (original === null) throw new ReviewError(`the test file ${file} is not in the tree made again`);
  const exp = await ws.step.parseOnly<{expr: string; start: number; end: number}>(
    ['expected', '--file', join(ws.patched, file), '--function', testPathOf(test)],
    ws.patched,
  );
  if ('error' in exp) throw new ReviewError(`the test's expected expression cannot be found again: ${exp.error}`);
  const chars = [...original];
  for (const [i, c] of toCheck.entries()) {
    progress(`running the test with ${c.label}. ${c.text} (${i + 1}/${toCheck.length}) on both versions`);
    const variant = chars.slice(0, exp.start).join('') + c.text + chars.slice(exp.end).join('');
    writeTest(ws.buggy, file, variant);
    writeTest(ws.patched, file, variant);
    const [b, f] = await Promise.all([ws.step.outcome(ws.buggy), ws.step.outcome(ws.patched)]);
    const evidence = {buggy: b, fixed: f};
    const {reproduces, broken} = judgeVariant(b, f);
    if (c.role === 'correct') {
      if (reproduces) pass(c, 'the test with it fails before the fix and passes after it', evidence);
      else
        fail(
          c,
          `the test with it does not fail-before-and-pass-after (buggy: ${outcomeText(b)} fixed: ${outcomeText(f)})`,
          evidence,
        );
    } else if (reproduces)
      fail(c, 'it makes the test fail before the fix and pass after it, so it is also a correct answer', evidence);
    else if (broken)
      fail(c, `the test does not run with it (${outcomeText(b)}${b.error ? ` ${b.error}` : ''})`, evidence);
    else pass(c, 'the test with it does not fail-before-and-pass-after', evidence);
  }
  writeTest(ws.buggy, file, original);
  writeTest(ws.patched, file, original);
}

/** Local types: each changed expression evaluated at the stored point on both versions, under the builder's definition of changed. */
async function checkLocal(
  ws: Awaited<ReturnType<typeof treesFor>>,
  prov: Provenance,
  q: Question,
  toCheck: ChoiceCheck[],
  progress: (d: string) => void,
  pass: Mark,
  fail: Mark,
): Promise<void> {
  const key = q.choices.find(c => c.label === q.answer[0])!;
  if (prov.no_effect) {
    // the delta is ∅ on complete traces: nothing changes, so every expression is unchanged
    for (const c of toCheck) {
      if (c.role === 'correct')
        fail(c, 'the patch has no effect on the test (its traces show no delta): no expression can be the key');
      else if (c.role === 'no_effect') pass(c, 'the traces show no delta', prov.no_effect);
      else pass(c, 'the patch has no effect on the test: no expression changes', prov.no_effect);
    }
    return;
  }
  if (key.role === 'no_effect') {
    const c = toCheck.find(x => x.role === 'no_effect') ?? toCheck[0];
    if (c) fail(c, 'the traces differ (a delta was found): "no effect" cannot be the key');
  }
  const at = prov.evaluated_at;
  if (!at)
    throw new ReviewError('the point the choices were evaluated at is not stored with this question: build it again');
  const exprs = toCheck.filter(c => c.role === 'correct' || c.role === 'distractor');
  if (!exprs.length) return;
  const run = {seed: prov.seed ?? 0, timeoutS: prov.build!.timeout_s, test: prov.build!.test};
  progress(
    `evaluating ${exprs.length} expression(s) ${at.buggy.timing} ${at.buggy.file}:${at.buggy.line} (execution ${at.buggy.hit}) on both versions`,
  );
  const [eb, ep] = await Promise.all([
    evaluateAt(
      ws.runner,
      run,
      ws.buggy,
      at.buggy,
      exprs.map(c => c.text),
    ),
    evaluateAt(
      ws.runner,
      run,
      ws.patched,
      at.patched,
      exprs.map(c => c.text),
    ),
  ]);
  for (const c of exprs) {
    if (!eb.reached || !ep.reached) {
      fail(c, `the point is not reached again (${eb.note ?? ep.note})`);
      continue;
    }
    const b: EvalResult = eb.results.get(c.text) ?? {error: {type: 'NoResult'}};
    const p: EvalResult = ep.results.get(c.text) ?? {error: {type: 'NoResult'}};
    const evidence = {buggy: b, patched: p};
    const diff = changed(b, p);
    if (c.role === 'correct') {
      if (diff) pass(c, 'its value changes at the point', evidence);
      else fail(c, `its value does not change at the point (${JSON.stringify(b.value ?? b.error)} on both)`, evidence);
    } else if (diff) fail(c, 'its value changes at the point, so it is also a correct answer', evidence);
    else if (b.error) fail(c, `it cannot be evaluated there (${b.error.type} on both versions)`, evidence);
    else pass(c, 'the same value on both versions at the point', evidence);
  }
}
