/**
 * Question construction (ExplainBench §5.2): from a bug (buggy tree), its fix (fixed tree or
 * gold patch), agent patches and a bug-reproducing test to validated questions. Every step is
 * decided by running code — in the sandbox, on throw-away trees — and every decision is kept as
 * provenance: the test's runs, each candidate with its runs and why it was kept or dropped, the
 * selection scores, the seed.
 *
 * The stages, each in its own file: the test in the two trees (prepare.ts), the validation runs
 * (validate.ts), end-to-end intent (e2e-intent.ts), end-to-end effect (e2e-effect.ts), local
 * intent and effect (local.ts); the quality checks after a build (quality.ts). A build's state —
 * progress, exclusions, saving — is one BuildSession (session.ts). The command checks the options.
 *
 * Offline generators only (no model): distractors for end-to-end intent are AST mutations of
 * the expected expression (`deltatrace mutants`); for end-to-end effect, the test's other
 * assert lines and other exception types.
 */
import type {Db} from '../../store/db.js';
import {forget} from '../leftovers.js';
import {pythonRunner} from '../python.js';
import {prepareWorkspace} from '../workspace.js';
import {buildE2eEffect} from './e2e-effect.js';
import {buildE2eIntent} from './e2e-intent.js';
import {buildLocal} from './local.js';
import type {BuildOptions, BuildResult} from './options.js';
import {prepareTest, type Prepared} from './prepare.js';
import {BuildSession} from './session.js';
import {fixSpec} from './trees.js';
import {validateTest} from './validate.js';

export async function buildQuestions(db: Db, o: BuildOptions): Promise<BuildResult> {
  const s = new BuildSession(db, o);
  const runner = await pythonRunner(o.python, o.sandbox, {passEnv: o.passEnv});
  s.progress('trees', 'copying the buggy and fixed trees');
  const ws = await prepareWorkspace(fixSpec(o), runner);
  let prepared: Prepared | null = null;
  try {
    prepared = await prepareTest(s, o, runner, ws);
    if (!prepared) return s.result();
    s.partDone(); // the trees
    // 1. the test must fail on the buggy version and pass on the fixed one, twice each (§5.2.1)
    const v = await validateTest(s, prepared);
    if (!v) return s.result();
    s.partDone(); // the validation runs
    // 2. end-to-end intent (§5.2.2)
    if (s.wants('e2e_intent')) {
      await buildE2eIntent(s, v);
      s.partDone();
    }
    // 3. end-to-end effect, one per agent patch (§5.2.3)
    if (s.wants('e2e_effect')) await buildE2eEffect(s, v);
    // 4. local intent (the fix's delta point) and local effect (each agent patch's), §5.3
    if (s.wants('local_intent') || s.wants('local_effect')) await buildLocal(s, v);
    return s.result();
  } finally {
    ws.cleanup();
    if (prepared?.leftover) forget(prepared.leftover);
  }
}
