import {mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {beforeAll, describe, expect, it} from 'vitest';
import {validateQuestion} from '../../source/core/questions/model.js';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {notReturnedYet} from '../../source/core/questions/candidates.js';
import {outcomeText} from '../../source/core/questions/outcome.js';
import {parametersOf, testFunctionContext} from '../../source/core/questions/test-source.js';
import {buildQuestions} from '../../source/services/questions/build.js';
import type {BuildOptions, BuildResult} from '../../source/services/questions/options.js';
import type {Db} from '../../source/store/db.js';
import {getQuestion, listExclusions, questionProvenance} from '../../source/store/questions.js';
import {freshDb} from '../helpers/db.js';
import {provenanceLines} from '../../source/ui/screens/question/lines.js';
import {tempDir} from '../helpers/files.js';
import {fieldsOf} from '../helpers/questions.js';
import {readProvenance} from '../../source/core/questions/provenance.js';

const P = join(PROJECTS_DIR, 'durations');
const patch = (name: string) => join(P, 'patches', `${name}.diff`);
const TEST = 'tests/test_parse.py::test_compound_duration';

function options(o: Partial<BuildOptions> = {}): BuildOptions {
  return {
    instance: 'demo__durations-1',
    buggyDir: join(P, 'repo'),
    goldPatch: patch('gold'),
    agentPatches: [],
    test: TEST,
    python: process.env.DELTALENS_PYTHON ?? 'python3',
    sandbox: 'prefer', // our own demo project
    seed: 0,
    timeoutS: 60,
    types: ['e2e_intent', 'e2e_effect'],
    ...o,
  } as BuildOptions; // a test that gives --fixed-dir sets goldPatch: undefined
}

let db: Db;
let built: BuildResult;
const broken = join(tempDir(), 'broken.diff');
beforeAll(async () => {
  db = freshDb().db;
  writeFileSync(
    broken,
    'diff --git a/durations/nope.py b/durations/nope.py\n--- a/durations/nope.py\n+++ b/durations/nope.py\n@@ -1,1 +1,1 @@\n-x = 1\n+x = 2\n',
  );
  built = await buildQuestions(
    db,
    options({
      types: ['e2e_intent', 'e2e_effect', 'local_intent', 'local_effect'],
      agentPatches: [
        {name: 'gold-as-agent', file: patch('gold')},
        {name: 'ineffective', file: patch('agent-ineffective')},
        {name: 'wrong', file: patch('agent-wrong')},
        {name: 'broken', file: broken},
      ],
    }),
  );
}, 300_000);

const byId = (id: string) => built.questions.find(b => b.question.id === id)!;
const keyTexts = (id: string) => {
  const q = byId(id).question;
  return q.answer.map(l => q.choices.find(c => c.label === l)!.text);
};

describe('questions build on the demo durations bug (real tests, run in the sandbox)', () => {
  it('end-to-end intent: the key is the expression the test asserts; a distractor that would also be correct is dropped', () => {
    const b = byId('demo__durations-1/built/e2e_intent');
    expect(keyTexts(b.question.id)).toEqual(['5400']);
    expect(b.question.context.test).toContain('11:     assert parse_duration("1h30m") == [[MASKED]]');
    const candidates = fieldsOf(b.provenance).candidates as {
      text: string;
      kept: boolean;
      reason: string;
      buggy: {status: string};
      fixed: {status: string};
    }[];
    const float = candidates.find(c => c.text === '5400.0')!;
    expect(float).toMatchObject({kept: false, buggy: {status: 'failed'}, fixed: {status: 'passed'}});
    expect(float.reason).toContain('also a correct answer');
    const distractors = b.question.choices.filter(c => c.role === 'distractor').map(c => c.text);
    expect(distractors).toHaveLength(3);
    expect(distractors).not.toContain('5400.0');
    for (const t of distractors) expect(candidates.find(c => c.text === t)!.kept).toBe(true);
    expect(b.question.choices.at(-1)!.role).toBe('insufficient');
  });

  it('end-to-end effect: keys are the outcomes the test really had before and after each patch', () => {
    const fail = 'The test failed at line 11 with exception: AssertionError.';
    // the developer's fix used as an agent patch: fails before, passes after
    expect(keyTexts('demo__durations-1/built/e2e_effect/gold-as-agent')).toEqual([fail, 'The test passed.']);
    // a patch to a function the test never calls: the same failure before and after
    expect(keyTexts('demo__durations-1/built/e2e_effect/ineffective')).toEqual([fail, fail]);
    expect(keyTexts('demo__durations-1/built/e2e_effect/wrong')).toEqual([fail, fail]);
    // "passed" is offered even when it is nobody's outcome
    expect(byId('demo__durations-1/built/e2e_effect/wrong').question.choices.map(c => c.text)).toContain(
      'The test passed.',
    );
  });

  it('local intent: the delta point of the fix, candidates evaluated on both versions, the changed one chosen by Eq. 2', () => {
    const b = byId('demo__durations-1/built/local_intent');
    // before line 21 and after its first run the two versions agree (1h: 3600 both); after its
    // second run the buggy total is 1800 and the fixed 5400
    expect(keyTexts(b.question.id)).toEqual(['total']);
    expect(b.question.context).toMatchObject({
      line: 'total = amount * UNIT_SECONDS[unit] (line 21)',
      timing: 'after',
      execution: 'the 2nd time the line runs',
      inputs: "{'text': '1h30m'}",
    });
    expect(String(b.question.context.function)).toMatch(/^def parse_duration\(text\):[\s\S]*return total$/);
    const candidates = fieldsOf(b.provenance).candidates as {
      text: string;
      changed: boolean;
      buggy: {value?: unknown};
      patched: {value?: unknown};
    }[];
    expect(candidates.find(c => c.text === 'total')).toMatchObject({
      changed: true,
      buggy: {value: 1800},
      patched: {value: 5400},
    });
    // every distractor was evaluated and did not change
    for (const c of b.question.choices.filter(x => x.role === 'distractor'))
      expect(candidates.find(x => x.text === c.text)!.changed).toBe(false);
    expect(fieldsOf(b.provenance).attempts).toEqual([
      {timing: 'before', hit: {buggy: 1, patched: 1}, changed: 0, candidates: 11},
      {timing: 'after', hit: {buggy: 1, patched: 1}, changed: 0, candidates: 11},
      {timing: 'after', hit: {buggy: 2, patched: 2}, changed: 1, candidates: 11},
    ]);
  });

  it("local effect: a patch the test's path never reaches has no effect; a wrong one changes total", () => {
    const none = byId('demo__durations-1/built/local_effect/ineffective').question;
    expect(none.choices.find(c => c.label === none.answer[0])!.role).toBe('no_effect');
    expect(keyTexts('demo__durations-1/built/local_effect/wrong')).toEqual(['total']);
    expect(keyTexts('demo__durations-1/built/local_effect/gold-as-agent')).toEqual(['total']);
  });

  it('a patch that does not apply is excluded with the reason; the rest is built', () => {
    expect(built.excluded).toEqual([
      expect.objectContaining({
        stage: 'e2e_effect',
        agent: 'broken',
        reason: expect.stringContaining('does not apply'),
      }),
      expect.objectContaining({
        stage: 'local_effect',
        agent: 'broken',
        reason: expect.stringContaining('does not apply'),
      }),
    ]);
    expect(built.questions).toHaveLength(8);
    // kept in the store for the instance screen and show instance
    expect(
      listExclusions(db, 'demo__durations-1')
        .map(e => [e.stage, e.agent, e.reason.includes('does not apply')])
        .sort(),
    ).toEqual([
      ['e2e_effect', 'broken', true],
      ['local_effect', 'broken', true],
    ]);
  });

  it("stores every question whole, valid, with its provenance and each choice's validation", () => {
    for (const b of built.questions) {
      const q = getQuestion(db, b.question.id)!;
      expect(validateQuestion(q)).toEqual(q);
      const p = questionProvenance(db, q.id)!;
      expect(p.provenance).toMatchObject({origin: 'built', generator: 'offline', seed: 0, test: TEST});
      // what the builder wrote reads back as its question type's provenance, field by field
      expect(readProvenance(q.type, p.provenance).problems).toEqual([]);
      for (const c of q.choices.filter(x => x.role !== 'insufficient')) expect(p.validations[c.label]).toBeDefined();
    }
  });

  it('a second build from the same inputs runs nothing again and changes nothing; --force builds anew', async () => {
    const again = await buildQuestions(db, options({agentPatches: [{name: 'wrong', file: patch('agent-wrong')}]}));
    expect(again.questions.map(b => [b.question.id, b.unchanged])).toEqual([
      ['demo__durations-1/built/e2e_intent', true],
      ['demo__durations-1/built/e2e_effect/wrong', true],
    ]);
    const forced = await buildQuestions(db, options({agentPatches: [], types: ['e2e_intent'], force: true}));
    expect(forced.questions[0]!.unchanged).toBe(false);
  }, 120_000);

  it('a test that does not reproduce the bug excludes the instance, saying why', async () => {
    const r = await buildQuestions(db, options({test: 'tests/test_parse.py::test_single_unit', types: ['e2e_intent']}));
    expect(r.questions).toEqual([]);
    expect(r.excluded).toEqual([
      {
        instance: 'demo__durations-1',
        stage: 'instance',
        reason: 'not bug-reproducing: the test passes on the buggy version',
      },
    ]);
    const missing = await buildQuestions(db, options({test: 'tests/test_parse.py::test_nope', types: ['e2e_intent']}));
    expect(missing.excluded[0]!.reason).toMatch(
      /^not bug-reproducing: the test does not run on either version \(no test ran/,
    );
    expect(outcomeText({status: 'error', line: null, exception: null})).toContain('could not run');
    // the store keeps the latest reason; a build whose test reproduces the bug clears it
    expect(listExclusions(db, 'demo__durations-1').find(e => e.stage === 'instance')!.reason).toMatch(/no test ran/);
    await buildQuestions(db, options({types: ['e2e_intent']}));
    expect(listExclusions(db, 'demo__durations-1').some(e => e.stage === 'instance')).toBe(false);
  }, 120_000);
});

describe('local questions where the function returns (or raises) differently', () => {
  it('the call itself is the changed candidate: its return value, read after the last line; an exception on one side only is a change', async () => {
    const local = freshDb().db;
    const project = (name: string, test: string) =>
      options({
        instance: `demo__${name}-1`,
        buggyDir: join(PROJECTS_DIR, name, 'repo'),
        goldPatch: join(PROJECTS_DIR, name, 'patches', 'gold.diff'),
        test,
        types: ['local_intent'],
      });
    const ledger = await buildQuestions(
      local,
      project('ledger', 'tests/test_account.py::test_small_deposits_keep_every_cent'),
    );
    const lq = ledger.questions[0]!;
    expect(lq.question.choices.find(c => c.label === lq.question.answer[0])!.text).toBe('to_cents(amount)');
    const lc = (
      fieldsOf(lq.provenance).candidates as {text: string; buggy: {value?: unknown}; patched: {value?: unknown}}[]
    ).find(c => c.text === 'to_cents(amount)')!;
    expect([lc.buggy.value, lc.patched.value]).toEqual([28, 29]);
    const graphs = await buildQuestions(local, project('graphs', 'tests/test_topo.py::test_cycle_is_reported'));
    const gq = graphs.questions[0]!;
    expect(gq.question.choices.find(c => c.label === gq.question.answer[0])!.text).toBe('visit(node)');
    const gc = (
      fieldsOf(gq.provenance).candidates as {
        text: string;
        buggy: {value?: unknown; error?: unknown};
        patched: {error?: {type: string}};
      }[]
    ).find(c => c.text === 'visit(node)')!;
    expect(gc.buggy).toMatchObject({value: null});
    expect(gc.patched.error).toBeDefined();
  }, 120_000);

  it('where no name in scope tells the sides apart, the parts of the delta line do (a fix to a module-level table)', async () => {
    const local = freshDb().db;
    const root = tempDir();
    const tree = (name: string, table: string) => {
      const dir = join(root, name);
      mkdirSync(join(dir, 'shop'), {recursive: true});
      mkdirSync(join(dir, 'tests'), {recursive: true});
      writeFileSync(join(dir, 'shop', '__init__.py'), '');
      writeFileSync(
        join(dir, 'shop', 'prices.py'),
        `PRICES = ${table}\n\n\ndef total():\n    return sum(PRICES.values())\n`,
      );
      writeFileSync(
        join(dir, 'tests', 'test_prices.py'),
        'from shop.prices import total\n\n\ndef test_total():\n    assert total() == 7\n',
      );
      return dir;
    };
    const buggy = tree('buggy', "{'pen': 2, 'ink': 4}");
    const fixed = tree('fixed', "{'pen': 3, 'ink': 4}");
    const r = await buildQuestions(
      local,
      options({
        instance: 'demo__prices-1',
        buggyDir: buggy,
        fixedDir: fixed,
        goldPatch: undefined,
        test: 'tests/test_prices.py::test_total',
        types: ['local_intent'],
      }),
    );
    expect(r.excluded).toEqual([]);
    const q = r.questions[0]!;
    const key = q.question.choices.find(c => c.label === q.question.answer[0])!.text;
    const candidates = fieldsOf(q.provenance).candidates as {
      text: string;
      changed: boolean;
      usable: boolean;
      scoped?: boolean;
      buggy: {value?: unknown};
      patched: {value?: unknown};
    }[];
    // the key and every distractor were evaluated on both versions: the key changed, the others did not
    expect(candidates.find(c => c.text === key)!.changed).toBe(true);
    for (const c of q.question.choices.filter(x => x.role === 'distractor'))
      expect(candidates.find(x => x.text === c.text)).toMatchObject({changed: false, usable: true});
    // the parts of the line: its sum changed (6 → 7), the table's length did not
    expect(candidates.find(c => c.text === 'sum(PRICES.values())')).toMatchObject({
      changed: true,
      scoped: true,
      buggy: {value: 6},
      patched: {value: 7},
    });
    expect(candidates.find(c => c.text === 'len(PRICES)')).toMatchObject({
      changed: false,
      usable: true,
      buggy: {value: 2},
      patched: {value: 2},
    });
    expect(q.question.choices.some(c => c.text === 'len(PRICES)')).toBe(true);
  }, 120_000);

  it('a fix that returns early through another call: the point is the caller at the end of its call, where it returns differently (ExplainBench\'s "return statement", after)', async () => {
    const local = freshDb().db;
    const root = tempDir();
    const tree = (name: string, guard: string[]) => {
      const dir = join(root, name);
      mkdirSync(join(dir, 'modular'), {recursive: true});
      mkdirSync(join(dir, 'tests'), {recursive: true});
      writeFileSync(join(dir, 'modular', '__init__.py'), '');
      writeFileSync(
        join(dir, 'modular', 'roots.py'),
        [
          'def is_residue(a, p):',
          '    return pow(a, (p - 1) // 2, p) == 1',
          '',
          '',
          'def is_zero(a, p):',
          '    return a % p == 0',
          '',
          '',
          'def roots(a, p):',
          '    a = int(a)',
          ...guard,
          '    if not is_residue(a, p):',
          '        return None',
          '    return [x for x in range(p) if (x * x - a) % p == 0]',
          '',
        ].join('\n'),
      );
      writeFileSync(
        join(dir, 'tests', 'test_roots.py'),
        'from modular.roots import roots\n\n\ndef test_zero():\n    assert roots(0, 5) == [0]\n',
      );
      return dir;
    };
    const buggy = tree('buggy', []);
    const fixed = tree('fixed', ['    if is_zero(a, p):', '        return [0]']);
    const r = await buildQuestions(
      local,
      options({
        instance: 'demo__roots-1',
        buggyDir: buggy,
        fixedDir: fixed,
        goldPatch: undefined,
        test: 'tests/test_roots.py::test_zero',
        types: ['local_intent'],
      }),
    );
    expect(r.excluded).toEqual([]);
    const q = r.questions[0]!;
    // the delta is where the sides call different functions: the point is in roots, not in a callee
    expect(String(q.question.context.function)).toMatch(/^def roots\(a, p\):/);
    expect(q.question.context).toMatchObject({
      line: 'The return statement in the provided function',
      timing: 'after',
      call: 'the call in which if not is_residue(a, p): (line 11) runs',
      inputs: "{'a': 0, 'p': 5}",
    });
    const attempts = fieldsOf(q.provenance).attempts as {timing: string; changed: number; note?: string}[];
    // nothing near the line tells the sides apart: before and after it the names agree
    expect(attempts.map(a => a.timing)).toEqual(['before', 'after', 'after', 'return']);
    expect(attempts[2]!.note).toMatch(/^not reached/);
    const candidates = fieldsOf(q.provenance).candidates as {
      text: string;
      changed: boolean;
      buggy: {value?: unknown};
      patched: {value?: unknown};
    }[];
    expect(candidates.find(c => c.text === 'roots(a, p)')).toMatchObject({
      changed: true,
      buggy: {value: null},
      patched: {value: [0]},
    });
    expect(candidates.find(c => c.text === 'p')).toMatchObject({
      changed: false,
      buggy: {value: 5},
      patched: {value: 5},
    });
    expect(q.question.choices.find(c => c.label === q.question.answer[0])!.text).toBe('roots(a, p)');
  }, 120_000);

  it('an ExplainBench-style property-based script (hypothesis, its test called at module level) as the test: the call moved under __main__ so pytest can import it, the failing example found once, recorded, and the delta traced and evaluated on it', async () => {
    const local = freshDb().db;
    const pbt = join(tempDir(), 'pbt.py');
    writeFileSync(
      pbt,
      [
        'from hypothesis import given, strategies as st',
        'from durations import parse_duration',
        '',
        '',
        '@given(st.integers(min_value=1, max_value=9), st.integers(min_value=1, max_value=59))',
        'def test_0a1b2c3d(hours, minutes):',
        '    assert parse_duration("%dh%dm" % (hours, minutes)) == hours * 3600 + minutes * 60',
        '',
        '',
        'test_0a1b2c3d()',
        '',
      ].join('\n'),
    );
    const r = await buildQuestions(
      local,
      options({instance: 'demo__durations-pbt', pbt, test: 'unused', types: ['e2e_intent', 'local_intent']}),
    );
    expect(r.excluded).toEqual([]);
    expect(r.questions.map(q => q.question.type).sort()).toEqual(['e2e_intent', 'local_intent']);
    const prov = r.questions[0]!.provenance as {
      test: string;
      hypothesis: {search: string; falsifying: string | null; test_runs: string; traced_and_evaluated_on: string};
      test_validation: {buggy: {status: string}[]; fixed: {status: string}[]};
    };
    expect(prov.test).toBe('test_deltalens_pbt.py::test_0a1b2c3d');
    // run while pytest imported the file, the module-level call would have failed the buggy side's collection
    expect(r.questions[0]!.provenance.build).toMatchObject({pbt_module_calls_moved: [10]});
    // the masked test is numbered as the file is, its decorators included
    const eq = r.questions.find(q => q.question.type === 'e2e_intent')!;
    expect(String(eq.question.context.test)).toMatch(
      /^5: @given\(.*\n6: def test_0a1b2c3d\(hours, minutes\):\n7: {5}assert parse_duration\(.*\) == \[\[MASKED\]\]$/,
    );
    // the search found the smallest failing example: one hour, one minute (hypothesis shrinks to it)
    expect(prov.hypothesis.search).toBe('a failing example found');
    expect(prov.hypothesis.falsifying).toMatch(/hours=1,[^\n]*\n\s*minutes=1,/);
    expect(prov.hypothesis.traced_and_evaluated_on).toBe('the failing example only');
    expect(prov.test_validation.buggy.map(x => x.status)).toEqual(['failed', 'failed']);
    expect(prov.test_validation.fixed.map(x => x.status)).toEqual(['passed', 'passed']);
    // the local question is asked at the example's values: "1h1m" → 60 before the fix, 3660 after
    const lq = r.questions.find(q => q.question.type === 'local_intent')!;
    const total = (
      fieldsOf(lq.provenance).candidates as {text: string; buggy: {value?: unknown}; patched: {value?: unknown}}[]
    ).find(c => c.text === 'total')!;
    expect([total.buggy.value, total.patched.value]).toEqual([60, 3660]);
    expect(String(lq.question.context.inputs)).toContain("'text': '1h1m'");
    // the question screen says on which example it was built
    const shown = provenanceLines(
      {provenance: readProvenance('local_intent', lq.provenance), validations: {}},
      lq.question,
      200,
    )
      .map(l => l.text)
      .join('\n');
    expect(shown).toContain(
      "hypothesis: the failing example test_0a1b2c3d( hours=1, minutes=1, ); the test's runs: the same derandomized examples on both sides; traced and evaluated on the failing example only",
    );
  }, 240_000);

  it("a fix that adds its test to a test file that was there: every side runs the fix's test (the buggy tree and each agent's), as SWE-bench applies the test patch", async () => {
    const local = freshDb().db;
    const root = tempDir();
    const oldTests = 'from calc.ops import double\n\n\ndef test_type():\n    assert isinstance(double(2), int)\n';
    const tree = (name: string, body: string, tests: string) => {
      const dir = join(root, name);
      mkdirSync(join(dir, 'calc'), {recursive: true});
      mkdirSync(join(dir, 'tests'), {recursive: true});
      writeFileSync(join(dir, 'calc', '__init__.py'), '');
      writeFileSync(join(dir, 'calc', 'ops.py'), `def double(x):\n    return ${body}\n`);
      writeFileSync(join(dir, 'tests', 'test_ops.py'), tests);
      return dir;
    };
    const buggy = tree('buggy', 'x + x + 1', oldTests);
    const fixed = tree('fixed', '2 * x', `${oldTests}\n\ndef test_double():\n    assert double(2) == 4\n`);
    const diff = (name: string, to: string) => {
      const file = join(root, `${name}.diff`);
      writeFileSync(
        file,
        `--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1,2 +1,2 @@\n def double(x):\n-    return x + x + 1\n+    return ${to}\n`,
      );
      return file;
    };
    const seen: {done: number; total: number}[] = [];
    const r = await buildQuestions(
      local,
      options({
        instance: 'demo__calc-1',
        buggyDir: buggy,
        fixedDir: fixed,
        goldPatch: undefined,
        test: 'tests/test_ops.py::test_double',
        types: ['e2e_effect'],
        agentPatches: [
          {name: 'right', file: diff('right', 'x * 2')},
          {name: 'wrong', file: diff('wrong', 'x + x + 2')},
        ],
        onProgress: (_s, _d, parts) => seen.push(parts),
      }),
    );
    // its parts: the trees, the validation runs, one per agent patch — counted up in order
    expect(new Set(seen.map(p => p.total))).toEqual(new Set([4]));
    expect(seen.map(p => p.done)).toEqual([...seen.map(p => p.done)].sort((a, b) => a - b));
    expect(seen.at(-1)!.done).toBe(3);
    expect(r.excluded).toEqual([]);
    const keys = (agent: string) => {
      const q = r.questions.find(b => b.question.agent === agent)!.question;
      return q.answer.map(l => q.choices.find(c => c.label === l)!.text);
    };
    const failsAt9 = outcomeText({status: 'failed', line: 9, exception: 'AssertionError'});
    expect(keys('right')).toEqual([failsAt9, 'The test passed.']);
    expect(keys('wrong')).toEqual([failsAt9, failsAt9]);
    // the question shows the test that runs (numbered as in its file), not the module's other tests, and names it
    const q = r.questions[0]!.question;
    expect(q.context.test).toBe('8: def test_double():\n9:     assert double(2) == 4');
    expect(q.question).toContain('running the test test_double (in tests/test_ops.py)');
    // what revalidation makes the trees from: the fix's test file
    expect(r.questions[0]!.provenance.build).toMatchObject({test_text: expect.stringContaining('def test_double():')});
  }, 120_000);

  it("the value a call returns is read only where the call returns: at another point it is not evaluable, never a change (the demo ledger's correct patch)", async () => {
    const local = freshDb().db;
    const L = join(PROJECTS_DIR, 'ledger');
    const r = await buildQuestions(
      local,
      options({
        instance: 'demo__ledger-1',
        buggyDir: join(L, 'repo'),
        goldPatch: join(L, 'patches', 'gold.diff'),
        test: 'tests/test_account.py::test_small_deposits_keep_every_cent',
        types: ['local_intent', 'local_effect'],
        agentPatches: [{name: 'correct', file: join(L, 'patches', 'agent-correct.diff')}],
      }),
    );
    expect(r.questions.length).toBeGreaterThan(0);
    for (const q of r.questions) {
      const candidates = fieldsOf(q.provenance).candidates as {
        expr?: string;
        changed: boolean;
        usable: boolean;
        buggy: {error?: {type: string; message?: string}};
        patched: {error?: {type: string; message?: string}};
      }[];
      for (const c of candidates.filter(x => x.expr === '__return__')) {
        const notYet = [c.buggy, c.patched].some(side => side.error && notReturnedYet(side.error));
        if (notYet) expect(c).toMatchObject({changed: false, usable: false});
      }
    }
  }, 240_000);

  it('the test function shown for an end-to-end effect question: its decorators (over several lines too) and only it', () => {
    const text = [
      'import pytest',
      '',
      'def helper():',
      '    return 1',
      '',
      '',
      '@pytest.mark.slow',
      '@pytest.mark.parametrize(',
      '    "x", [1, 2],',
      ')',
      'def test_x(x):',
      '    assert x',
      '',
      'def test_y():',
      '    assert 0',
      '',
    ].join('\n');
    expect(testFunctionContext(text, 'test_x')).toBe(
      '7: @pytest.mark.slow\n8: @pytest.mark.parametrize(\n9:     "x", [1, 2],\n10: )\n11: def test_x(x):\n12:     assert x',
    );
    expect(testFunctionContext(text, 'test_y')).toBe('14: def test_y():\n15:     assert 0');
    expect(
      testFunctionContext('class TestA:\n    @staticmethod\n    def test_m():\n        assert 1\n', 'TestA::test_m'),
    ).toBe('2:     @staticmethod\n3:     def test_m():\n4:         assert 1');
  });

  it('reads the parameters of a one-line def', () => {
    expect(parametersOf('    def visit(node):')).toEqual(['node']);
    expect(parametersOf('def f(self, a: int = 1, *args, b=2, **kw) -> None:')).toEqual([
      'self',
      'a',
      'args',
      'b',
      'kw',
    ]);
    expect(parametersOf('def g(')).toBeNull();
  });
});
