/** A bug-reproducing test written by the generating model, validated before it is used. */
import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {pbtPrompt} from '../../core/questions/generator-prompts.js';
import {failsBeforePassesAfter, outcomeText, sameOutcome} from '../../core/questions/outcome.js';
import {testFileOf} from '../../core/questions/test-source.js';
import type {PbtAttempt} from '../../core/questions/provenance.js';
import {pythonTestCode} from '../../core/text/python-code.js';
import type {Db} from '../../store/db.js';
import {problemStatement} from '../../store/instances.js';
import {makeTempDir} from '../leftovers.js';
import {removeInTree} from '../tree-files.js';
import type {Workspace} from '../workspace.js';
import type {BuildOptions} from './options.js';
import {Step} from './runs.js';
import {PBT_FILE, readTestFile, writeTest} from './test-files.js';

/**
 * The bug-reproducing test written by the model (ExplainBench §5.2.1): from the issue text, the
 * gold patch and the fix's own test; each attempt is run twice on each version and kept only if
 * it fails before and passes after, the same way each time. A failed attempt's reason goes into
 * the next prompt. Returns the file to use as --pbt, and every attempt.
 */
export async function generatePbt(
  db: Db,
  o: BuildOptions,
  step: Step,
  ws: Workspace,
): Promise<{file: string | null; attempts: PbtAttempt[]}> {
  const attempts: PbtAttempt[] = [];
  const issue = o.issue ?? problemStatement(db, o.instance) ?? '(no issue text given)';
  const gold = o.goldPatch ? readFileSync(o.goldPatch, 'utf8') : '(the fix is given as a tree)';
  const own = o.test ? readTestFile(ws.patched, testFileOf(o.test)) : null;
  const dir = makeTempDir('pbt');
  for (let n = 1; n <= (o.generatePbt ?? 3); n++) {
    const prompt = pbtPrompt(issue, gold, own, attempts.at(-1)?.reason ?? null);
    o.onProgress?.('pbt', `asking ${o.generator!.name} for a bug-reproducing test (attempt ${n})`, {done: 0, total: 0});
    const raw = await step.ask('pbt', prompt);
    if (raw === null) {
      attempts.push({attempt: n, prompt, raw: null, reason: step.silence()});
      continue;
    }
    const code = pythonTestCode(raw);
    const fn = code ? /^(?:async\s+)?def\s+(test\w*)\s*\(/m.exec(code)?.[1] : undefined;
    if (!code || !fn) {
      attempts.push({attempt: n, prompt, raw, reason: 'no test_… function in the answer'});
      continue;
    }
    for (const tree of [ws.buggy, ws.patched]) writeTest(tree, PBT_FILE, code);
    const probe = new Step(step.runner, {...o, test: `${PBT_FILE}::${fn}`});
    const [b, f] = await Promise.all([probe.twice(ws.buggy), probe.twice(ws.patched)]);
    const steady = sameOutcome(b[0]!, b[1]!) && sameOutcome(f[0]!, f[1]!);
    const reproduces = steady && failsBeforePassesAfter(b[0]!, f[0]!);
    const reason = reproduces
      ? 'used'
      : !steady
        ? 'flaky: two runs of one version ended differently'
        : b[0]!.status === 'passed'
          ? 'it passes on the buggy version: it does not reproduce the bug'
          : `it does not pass on the fixed version (${outcomeText(f[0]!)}${f[0]!.error ? ` ${f[0]!.error}` : ''}${f[0]!.message ? ` ${f[0]!.message.split('\n')[0]}` : ''})`;
    attempts.push({attempt: n, prompt, raw, reason, buggy: b, fixed: f});
    for (const tree of [ws.buggy, ws.patched]) removeInTree(tree, PBT_FILE);
    if (reproduces) {
      const file = join(dir, PBT_FILE);
      writeFileSync(file, code);
      return {file, attempts};
    }
  }
  return {file: null, attempts};
}
