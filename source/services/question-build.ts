/**
 * Question construction (ExplainBench §5.2): from a bug (buggy tree), its fix (fixed tree or
 * gold patch), agent patches and a bug-reproducing test to validated end-to-end questions.
 * Every step is decided by running code — in the sandbox, on throw-away trees — and every
 * decision is kept as provenance: the test's runs, each candidate with its runs and why it was
 * kept or dropped, the selection scores, the seed.
 *
 * Offline generators only (no model): distractors for end-to-end intent are AST mutations of
 * the expected expression (`deltatrace mutants`); for end-to-end effect, the test's other
 * assert lines and other exception types.
 */
import {createHash} from 'node:crypto';
import {lstatSync, readdirSync, readFileSync, writeFileSync} from 'node:fs';
import {basename, dirname, join, resolve} from 'node:path';
import {distance as levenshtein} from 'fastest-levenshtein';
import {
  INSUFFICIENT_TEXT,
  NO_EFFECT_TEXT,
  validateQuestion,
  type Choice,
  type Question,
  type QuestionType,
} from '../core/questions/model.js';
import {seedOf} from '../core/questions/prompt.js';
import {mmr, MMR_LAMBDA, pickCorrect, seededOrder, type Distance} from '../core/questions/select.js';
import {formatValue} from '../core/trace/values.js';
import {pythonTestCode} from '../core/text/python-code.js';
import type {Db} from '../store/db.js';
import {writeTx} from '../store/db.js';
import {
  addReview,
  answerTally,
  clearExclusion,
  ensureExplanation,
  getQuestion,
  insertQuestion,
  listReviews,
  noteExclusion,
  questionProvenance,
} from '../store/questions.js';
import {problemStatement} from '../store/instances.js';
import {forget, makeTempDir} from './leftovers.js';
import {readTextInTree, removeInTree, writeInTree} from './tree-files.js';
import {automaticFlags} from './annotation.js';
import {lexicalModel, type QaModel} from './qa-models.js';
import {modelName, scoreExplanations} from './scoring.js';
import {pythonRunner, runEval, runPython, toolsRunner, type PythonRunner} from './python.js';
import type {SandboxPolicy} from './sandbox.js';
import {deltaPointOf, type DeltaPoint} from './stepper.js';
import {
  changesBetween,
  prepareHypothesis,
  seedArgs,
  tracePair,
  usesHypothesis,
  type HypothesisPlan,
} from './tracing.js';
import {getPair, getTrace, latestDelta, tracedPairFor} from '../store/traces.js';
import {prepareWorkspace, WorkspaceError, type Workspace, type WorkspaceSpec} from './workspace.js';

/** Bumped when a generator or a validation rule changes: stored with every built question. */
const BUILDER_VERSION = 4;
export {NO_EFFECT_TEXT};
const DISTRACTORS = 3;
/** Offline candidates validated per end-to-end intent question (each costs a test run per version). */
const MUTANTS = 12;
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

export interface BuildOptions {
  instance: string;
  /** the buggy tree: a folder, or (with buggyRev) a git repository */
  buggyDir: string;
  /** a revision of the repository buggyDir names (its files exported; the repository is only read) */
  buggyRev?: string;
  fixedDir?: string;
  /** the fixed version as a revision of the same repository */
  fixedRev?: string;
  goldPatch?: string;
  /** a property-based (or any) test file given apart from the trees: copied into both as
   * test_deltalens_pbt.py, its first test function run */
  pbt?: string;
  /** with a generator: write the bug-reproducing PBT from the issue text, the gold patch and the
   * fix's test (if --test names one); at most this many attempts, each validated and kept */
  generatePbt?: number;
  /** the issue text (default: the instance record's problem statement) */
  issue?: string;
  agentPatches: {name: string; file: string}[];
  /** a pytest node id, relative to the trees' root */
  test: string;
  python: string;
  sandbox: SandboxPolicy;
  passEnv?: string[];
  seed: number | null;
  timeoutS: number;
  types: QuestionType[];
  /** build again even when a question was built from the same inputs */
  force?: boolean;
  /** the model that writes candidates (distractors, local expressions); none: offline generators */
  generator?: QaModel | null;
  /** what runs now; `parts`: the parts of the build done and planned (trees, validation, each question) */
  onProgress?: (stage: string, detail: string, parts: {done: number; total: number}) => void;
}

/** The inputs of a build, kept in each question's provenance: enough to make its trees again. */
export interface BuildInputs {
  buggy_dir: string;
  buggy_rev?: string;
  fixed_dir?: string;
  fixed_rev?: string;
  /** the gold patch's text */
  gold_patch?: string;
  /** a test given apart (--pbt, or written by the model): its text, as written into the trees */
  pbt?: string;
  /** the lines of its module-level calls of its test, moved under if __name__ == '__main__' */
  pbt_module_calls_moved?: number[];
  test: string;
  /** the test file as the fix has it, written into every tree the test runs in */
  test_text?: string;
  timeout_s: number;
}

export interface TestOutcome {
  status: 'passed' | 'failed' | 'error' | 'skipped' | 'timeout';
  line: number | null;
  exception: string | null;
  message?: string;
  error?: string;
}

interface BuiltQuestion {
  question: Question;
  provenance: Record<string, unknown>;
  /** already built from the same inputs: kept as it was */
  unchanged: boolean;
}

export interface Excluded {
  instance: string;
  /** the question type (or "instance" when nothing could be built) and the agent, if any */
  stage: string;
  agent?: string;
  reason: string;
}

export interface BuildResult {
  questions: BuiltQuestion[];
  excluded: Excluded[];
}

/** Levenshtein over code points: astral characters count once. */
export const codePointDistance: Distance = (a, b) => {
  if (!/[\uD800-\uDFFF]/.test(a + b)) return levenshtein(a, b);
  const map = new Map<number, string>();
  let next = 0xe000;
  const conv = (s: string) =>
    [...s]
      .map(ch => {
        const cp = ch.codePointAt(0)!;
        if (cp <= 0xffff) return ch;
        if (!map.has(cp)) map.set(cp, String.fromCharCode(next++));
        return map.get(cp)!;
      })
      .join('');
  return levenshtein(conv(a), conv(b));
};

export function outcomeText(o: TestOutcome): string {
  if (o.status === 'passed') return 'The test passed.';
  if (o.status === 'timeout') return 'The test did not finish (timed out).';
  if (o.line !== null && o.exception) return `The test failed at line ${o.line} with exception: ${o.exception}.`;
  if (o.exception) return `The test failed with exception: ${o.exception}.`;
  return 'The test could not run (it errored before its body ran).';
}

const sameOutcome = (a: TestOutcome, b: TestOutcome) => outcomeText(a) === outcomeText(b);
const failsBeforePassesAfter = (before: TestOutcome, after: TestOutcome) =>
  before.status !== 'passed' && before.status !== 'skipped' && after.status === 'passed';

export class Step {
  constructor(
    readonly runner: PythonRunner,
    readonly o: Pick<BuildOptions, 'timeoutS' | 'seed' | 'test' | 'generator'>,
  ) {}

  private async python(
    args: string[],
    cwd: string,
    writable: string[],
    readable: string[] = [],
    input?: string,
  ): Promise<{stdout: string; stderr: string; timedOut: boolean}> {
    // the tree a run is about is shown at /testbed, as in every traced run
    const r = await runPython(this.runner, args, {
      cwd,
      timeoutMs: this.o.timeoutS * 1000,
      writable,
      readable,
      input,
      testbed: writable.includes(cwd) ? cwd : undefined,
    });
    return {stdout: r.stdout, stderr: r.stderr, timedOut: r.timedOut};
  }

  /** The test run once on a tree: passed, or failed at line N of the test file with E. */
  /**
   * How a property-based test's examples are drawn in these runs: the same derandomized ones on
   * both sides (examples follow the test's text, so a substituted test gets its own, the same on
   * both sides), or only the failing example the search found (replay); null: not hypothesis.
   */
  hypothesis: HypothesisPlan | null = null;

  private hypothesisArgs(): string[] {
    const h = this.hypothesis;
    if (!h || h.mode === 'off') return [];
    return ['--hypothesis', h.mode, ...(h.mode === 'replay' && h.db ? ['--hypothesis-db', h.db] : [])];
  }

  async outcome(tree: string): Promise<TestOutcome> {
    const db = this.hypothesis?.mode === 'replay' && this.hypothesis.db ? [this.hypothesis.db] : [];
    const r = await this.python(
      [
        '-m',
        'deltatrace',
        'outcome',
        '--root',
        tree,
        ...seedArgs(this.o.seed),
        ...this.hypothesisArgs(),
        '--',
        this.o.test,
      ],
      tree,
      [tree],
      db,
    );
    if (r.timedOut) return {status: 'timeout', line: null, exception: null};
    let rec: {
      status: string;
      tests?: {outcome: string; line?: number | null; exc_type?: string; message?: string}[];
      error?: string;
    };
    try {
      rec = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '');
    } catch {
      return {
        status: 'error',
        line: null,
        exception: null,
        error: `deltatrace outcome printed no result: ${r.stderr.trim().split('\n').slice(-2).join(' ')}`,
      };
    }
    const bad = rec.tests?.find(t => t.outcome === 'failed' || t.outcome === 'error');
    const status = (
      ['passed', 'failed', 'error', 'skipped'].includes(rec.status) ? rec.status : 'error'
    ) as TestOutcome['status'];
    return {
      status,
      line: bad?.line ?? null,
      exception: bad?.exc_type ?? null,
      ...(bad?.message ? {message: bad.message.slice(0, 500)} : {}),
      ...(rec.error ? {error: rec.error.slice(0, 500)} : {}),
    };
  }

  /** Every prompt sent to the generating model and what came back, for the provenance. */
  readonly log: {
    stage: string;
    attempt: number;
    prompt: string;
    raw: string | null;
    error?: string;
    tokens: number | null;
  }[] = [];

  /** The generating model's answer to `prompt`: a failed call is asked again once; every call is
   * logged. Null when neither answered. */
  async ask(stage: string, prompt: string): Promise<string | null> {
    for (let attempt = 1; attempt <= 2; attempt++) {
      try {
        const r = await this.o.generator!.answer(prompt);
        this.log.push({stage, attempt, prompt, raw: r.text, tokens: r.tokens});
        return r.text;
      } catch (error) {
        this.log.push({stage, attempt, prompt, raw: null, error: (error as Error).message, tokens: null});
      }
    }
    return null;
  }

  /** Why the last `ask` has no answer. */
  silence(): string {
    return `the model did not answer: ${this.log.at(-1)?.error ?? ''}`;
  }

  /** Both runs of the test on one tree, one after the other (a flaky test ends them differently). */
  async twice(tree: string): Promise<TestOutcome[]> {
    return [await this.outcome(tree), await this.outcome(tree)];
  }

  /**
   * Asks the generating model for candidates, one per line; bad output is expected: a failed
   * call is retried once, lines that are not Python expressions are dropped (and said so).
   */
  async candidatesFromModel(
    stage: string,
    prompt: string,
    cwd: string,
  ): Promise<{ok: {text: string; how: string}[]; dropped: {text: string; reason: string}[]}> {
    const model = this.o.generator!;
    const raw = await this.ask(stage, prompt);
    if (raw === null) return {ok: [], dropped: [{text: '', reason: this.silence()}]};
    const lines = [
      ...new Set(
        raw
          .split('\n')
          .map(l =>
            l
              .replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '')
              .replace(/^`+|`+$/g, '')
              .trim(),
          )
          .filter(l => l && !l.endsWith(':')),
      ),
    ].slice(0, 16);
    if (!lines.length) return {ok: [], dropped: [{text: raw.slice(0, 200), reason: 'the answer holds no line to use'}]};
    const parsed = await this.parseOnly<{results: {text: string; ok: boolean; normalized?: string; error?: string}[]}>(
      ['exprs', '--exprs-stdin'],
      cwd,
      JSON.stringify(lines),
    );
    if ('error' in parsed) return {ok: [], dropped: lines.map(text => ({text, reason: parsed.error}))};
    return {
      ok: parsed.results.filter(r => r.ok).map(r => ({text: r.normalized!, how: `written by ${model.name}`})),
      dropped: parsed.results.filter(r => !r.ok).map(r => ({text: r.text, reason: `dropped: ${r.error}`})),
    };
  }

  /** Alternative failures from the generating model, "line N, ExceptionName" per line; a line
   * outside the test function or a name that is no identifier is dropped with the reason. */
  async failuresFromModel(
    prompt: string,
    range: [number, number] | null,
  ): Promise<{ok: {line: number; exception: string; how: string}[]; dropped: {text: string; reason: string}[]}> {
    const model = this.o.generator!;
    const raw = await this.ask('e2e_effect', prompt);
    const ok: {line: number; exception: string; how: string}[] = [];
    const dropped: {text: string; reason: string}[] = [];
    if (raw === null) return {ok, dropped: [{text: '', reason: this.silence()}]};
    for (const line of raw
      .split('\n')
      .map(l => l.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').trim())
      .filter(Boolean)) {
      const m = /^(?:line\s*)?(\d+)\s*[,:)\-–]?\s*(?:with\s+)?([A-Za-z_][\w.]*)\W*$/i.exec(line);
      if (!m) {
        dropped.push({text: line, reason: 'dropped: not "line N, ExceptionName"'});
        continue;
      }
      const n = Number(m[1]);
      if (range && (n < range[0] || n > range[1])) {
        dropped.push({
          text: line,
          reason: `dropped: line ${n} is not in the test function (lines ${range[0]}–${range[1]})`,
        });
        continue;
      }
      ok.push({line: n, exception: m[2]!, how: `written by ${model.name}`});
    }
    return {ok, dropped};
  }

  /** A deltatrace command that only parses (no code of the project runs). */
  private tools: PythonRunner | null = null;

  /** A parse-only helper (ast; no project code): on Python ≥ 3.9, the project's or another (toolsRunner). */
  async parseOnly<T>(args: string[], cwd: string, input?: string): Promise<T | {error: string}> {
    this.tools ??= await toolsRunner(this.runner);
    const r = await runPython(this.tools, ['-m', 'deltatrace', ...args], {
      cwd,
      timeoutMs: this.o.timeoutS * 1000,
      writable: [],
      readable: [cwd],
      input,
    });
    try {
      return JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '') as T | {error: string};
    } catch {
      return {error: `deltatrace ${args[0]} failed: ${r.stderr.trim().split('\n').slice(-2).join(' ')}`};
    }
  }
}

function sha(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex').slice(0, 16);
}

export const PBT_FILE = 'test_deltalens_pbt.py';

/** The buggy and the fixed tree: two folders, two revisions of one repository, or the buggy tree with the gold patch. */
export function fixSpec(
  o: Pick<BuildOptions, 'buggyDir' | 'buggyRev' | 'fixedDir' | 'fixedRev' | 'goldPatch'>,
): WorkspaceSpec {
  return o.fixedDir
    ? {kind: 'dirs', buggyDir: o.buggyDir, patchedDir: o.fixedDir}
    : o.fixedRev
      ? {kind: 'revs', repo: o.buggyDir, buggy: o.buggyRev!, patched: o.fixedRev}
      : patchedSpec(o, o.goldPatch!);
}

/** A test with an expression substituted, run on both versions: does it fail before the fix and
 * pass after it (the expression is also correct), or not run at all (it says nothing)? */
export function judgeVariant(b: TestOutcome, f: TestOutcome): {reproduces: boolean; broken: boolean} {
  return {
    reproduces: failsBeforePassesAfter(b, f),
    broken: [b, f].every(x => x.status === 'error' && x.line === null) || [b, f].some(x => x.status === 'timeout'),
  };
}

/** The buggy tree with a patch applied: a copy of the folder, or the revision's files. */
export function patchedSpec(o: Pick<BuildOptions, 'buggyDir' | 'buggyRev'>, patch: string): WorkspaceSpec {
  return o.buggyRev
    ? {kind: 'patch', repo: o.buggyDir, buggy: o.buggyRev, patch}
    : {kind: 'patch', repo: o.buggyDir, patch, copy: true};
}

export const testFileOf = (nodeid: string) => nodeid.split('::')[0]!;
export const testPathOf = (nodeid: string) => nodeid.split('::').slice(1).join('::');

/** A test file is read at most this large (a test module is never gigabytes; a run could leave one). */
const MAX_TEST_BYTES = 16 * 1024 * 1024;

/** A test file of a tree untrusted code ran in: null when it is not there; refused (TreeFileError)
 * when it is a link, not a regular file, or too large. */
export function readTestFile(tree: string, file: string): string | null {
  return readTextInTree(tree, file, MAX_TEST_BYTES);
}

/**
 * The test file as the fix has it, in a tree that may have another version (the buggy tree, an
 * agent's): a fix that adds the test, or adds it to a test file that was there, is run with its
 * own test on every side — as SWE-bench applies the test patch after the model's patch. Written
 * never through a link; nothing is written when the tree has that text already.
 */
export function writeFixedTestFile(tree: string, fixedText: string, file: string): void {
  if (readTestFile(tree, file) !== fixedText) writeTest(tree, file, fixedText);
}

/**
 * The test file rewritten (a candidate substituted, or the original back), with its cached
 * bytecode removed: pytest and CPython check a cache by the source's mtime (whole seconds) and
 * size, and two candidates of one length written within a second would share a stale one.
 */
export function writeTest(tree: string, file: string, text: string): void {
  writeInTree(tree, file, text);
  const cache = join(dirname(file), '__pycache__');
  const stem = basename(file, '.py');
  let cached: string[] = [];
  try {
    if (lstatSync(join(tree, cache)).isDirectory()) cached = readdirSync(join(tree, cache));
  } catch {
    cached = [];
  }
  for (const f of cached) if (f.startsWith(`${stem}.`) && f.endsWith('.pyc')) removeInTree(tree, join(cache, f));
}

/** Lines of a function's source, numbered as in the file ("11: assert …"). */
function numbered(source: string, firstLine: number): string {
  return source
    .replace(/\n$/, '')
    .split('\n')
    .map((l, i) => `${firstLine + i}: ${l}`)
    .join('\n');
}

const LABELS = 'ABCDEFGHIJ';

/** Choices labelled A, B, … in the given order, with "insufficient" last. */
function labelled(options: {text: string; role: Choice['role']}[]): Choice[] {
  return [...options, {text: INSUFFICIENT_TEXT, role: 'insufficient' as const}].map((c, i) => ({
    label: LABELS[i]!,
    text: c.text,
    role: c.role,
  }));
}

export async function buildQuestions(db: Db, o: BuildOptions): Promise<BuildResult> {
  const excluded: Excluded[] = [];
  const questions: BuiltQuestion[] = [];
  // the build's parts, for a count and an estimate of the time left: the trees, the validation
  // runs, and one part per question it can build
  const agentsOf = (t: QuestionType) => (o.types.includes(t) ? o.agentPatches.length : 0);
  const parts = {
    done: 0,
    total:
      2 +
      (o.types.includes('e2e_intent') ? 1 : 0) +
      agentsOf('e2e_effect') +
      (o.types.includes('local_intent') || o.types.includes('local_effect') ? 1 : 0) +
      agentsOf('local_effect'),
  };
  const progress = (stage: string, detail: string) => o.onProgress?.(stage, detail, {...parts});
  const partDone = () => {
    parts.done = Math.min(parts.total, parts.done + 1);
  };
  // said in the answer and kept in the store (the instance screen lists them) until built
  const exclude = (stage: string, reason: string, agent?: string) => {
    excluded.push({instance: o.instance, stage, ...(agent ? {agent} : {}), reason});
    noteExclusion(db, {instance: o.instance, stage, agent: agent ?? null, reason});
  };
  if ([o.fixedDir, o.goldPatch, o.fixedRev].filter(Boolean).length !== 1)
    throw new WorkspaceError('give the fix as --fixed-dir, --fixed REV or --gold-patch (one of them)');
  if (o.fixedRev && !o.buggyRev) throw new WorkspaceError('--fixed REV goes with --buggy REV (revisions of --repo)');
  const runner = await pythonRunner(o.python, o.sandbox, {passEnv: o.passEnv});
  let step = new Step(runner, o);
  let pbtAttempts: PbtAttempt[] = [];
  let pbtDir: string | null = null;
  let pbtRuns: [TestOutcome[], TestOutcome[]] | null = null;
  let hypothesisDir: string | null = null;
  progress('trees', 'copying the buggy and fixed trees');
  const ws = await prepareWorkspace(fixSpec(o), runner);
  try {
    if (o.generatePbt && o.generator) {
      const made = await generatePbt(db, o, step, ws);
      pbtAttempts = made.attempts;
      if (made.file) pbtDir = dirname(made.file);
      const used = made.attempts.at(-1);
      if (used?.buggy && used.fixed) pbtRuns = [used.buggy, used.fixed];
      if (!made.file) {
        exclude(
          'instance',
          `no bug-reproducing test from ${o.generator.name} in ${made.attempts.length} attempt(s): ${made.attempts.map(a => a.reason).join('; ')}`,
        );
        return {questions, excluded};
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
        progress(
          'validate',
          `the test script calls its test at module level (line ${guarded.moved.join(', ')}): moved under if __name__ == '__main__' so that pytest can import it`,
        );
      }
      const fn = /^(?:async\s+)?def\s+(test\w*)\s*\(/m.exec(text)?.[1];
      if (!fn) {
        exclude('instance', `--pbt ${o.pbt}: no test_… function in it`);
        return {questions, excluded};
      }
      for (const tree of [ws.buggy, ws.patched]) writeTest(tree, PBT_FILE, text);
      o = {...o, test: `${PBT_FILE}::${fn}`};
      step = new Step(runner, o);
      if (pbtDir) forget(pbtDir);
    }
    const file = testFileOf(o.test);
    const testText = readTestFile(ws.patched, file);
    if (testText === null) {
      exclude('instance', `the test file ${file} is not in the fixed tree`);
      return {questions, excluded};
    }
    writeFixedTestFile(ws.buggy, testText, file);
    const fix = o.goldPatch
      ? readFileSync(o.goldPatch, 'utf8')
      : o.fixedRev
        ? `rev:${o.buggyRev}..${o.fixedRev}`
        : `dir:${o.fixedDir}`;
    const seed = o.seed ?? 0;

    // A property-based test (hypothesis): one untraced search on the buggy side for a failing
    // example; the traced pair and the local evaluations replay only that example, and the test's
    // runs draw the same derandomized examples on both sides.
    let hypothesis: HypothesisPlan | null = null;
    if (usesHypothesis(ws.buggy, o.test)) {
      progress('validate', 'the test uses hypothesis: looking for a failing example on the buggy side (not traced)');
      hypothesisDir = makeTempDir('hypothesis');
      hypothesis = await prepareHypothesis(runner, ws.buggy, o.test, hypothesisDir, {
        seed: o.seed,
        timeoutS: o.timeoutS,
      });
      progress('validate', hypothesis.note);
      step.hypothesis = {mode: 'derandomize', note: 'the same derandomized examples on both sides'};
    }

    partDone(); // the trees
    // 1. the test must fail on the buggy version and pass on the fixed one, twice each (§5.2.1)
    progress('validate', `running ${o.test} twice on each version`);
    // the two versions run side by side (separate trees); each twice in a row — a test the
    // model wrote was run so while it was being chosen
    let [buggyRuns, fixedRuns] = pbtRuns ?? (await Promise.all([step.twice(ws.buggy), step.twice(ws.patched)]));
    if (!pbtRuns && hypothesis?.mode === 'replay' && !failsBeforePassesAfter(buggyRuns![0]!, fixedRuns![0]!)) {
      // the derandomized examples miss the bug the search found: every run replays that example
      progress(
        'validate',
        'the derandomized examples do not reproduce the bug: running the failing example the search found',
      );
      step.hypothesis = hypothesis;
      [buggyRuns, fixedRuns] = await Promise.all([step.twice(ws.buggy), step.twice(ws.patched)]);
    }
    const runs = {buggy: buggyRuns!, fixed: fixedRuns!};
    if (!sameOutcome(runs.buggy[0]!, runs.buggy[1]!) || !sameOutcome(runs.fixed[0]!, runs.fixed[1]!)) {
      exclude(
        'instance',
        `flaky test: ${!sameOutcome(runs.buggy[0]!, runs.buggy[1]!) ? `on the buggy version "${outcomeText(runs.buggy[0]!)}" then "${outcomeText(runs.buggy[1]!)}"` : `on the fixed version "${outcomeText(runs.fixed[0]!)}" then "${outcomeText(runs.fixed[1]!)}"`}`,
      );
      return {questions, excluded};
    }
    const [before, fixed] = [runs.buggy[0]!, runs.fixed[0]!];
    if (!failsBeforePassesAfter(before, fixed)) {
      const why =
        before.status === 'error' && fixed.status === 'error' && before.line === null
          ? `the test does not run on either version (${fixed.error ?? outcomeText(fixed)})`
          : before.status === 'passed'
            ? 'the test passes on the buggy version'
            : `the test does not pass on the fixed version (${outcomeText(fixed)}${fixed.error ? ` ${fixed.error}` : ''})`;
      exclude('instance', `not bug-reproducing: ${why}`);
      return {questions, excluded};
    }

    clearExclusion(db, o.instance, 'instance');
    // what a re-validation of an edited question needs to make the same trees again
    const build: BuildInputs = {
      buggy_dir: resolve(o.buggyDir),
      ...(o.buggyRev ? {buggy_rev: o.buggyRev} : {}),
      ...(o.fixedDir
        ? {fixed_dir: resolve(o.fixedDir)}
        : o.fixedRev
          ? {fixed_rev: o.fixedRev}
          : {gold_patch: readFileSync(o.goldPatch!, 'utf8')}),
      ...(pbtText !== null ? {pbt: pbtText} : {}),
      ...(pbtGuarded.length ? {pbt_module_calls_moved: pbtGuarded} : {}),
      test: o.test,
      test_text: testText,
      timeout_s: o.timeoutS,
    };
    const base = {
      origin: 'built',
      generator: o.generator ? `model ${o.generator.name}` : 'offline',
      builder_version: BUILDER_VERSION,
      seed,
      test: o.test,
      build,
      test_validation: runs,
      ...(pbtAttempts.length ? {pbt_generation: pbtAttempts} : {}),
      ...(hypothesis
        ? {
            hypothesis: {
              search: hypothesis.mode === 'replay' ? 'a failing example found' : 'no failing example saved',
              falsifying: hypothesis.falsifying ?? null,
              note: hypothesis.note,
              test_runs:
                step.hypothesis!.mode === 'replay'
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
    // built before from the same inputs (and not --force): kept as stored, nothing runs again
    const unchanged = (id: string, inputs: string): boolean => {
      if (o.force) return false;
      const stored = questionProvenance(db, id);
      const q =
        stored && (stored.provenance as {inputs?: string} | null)?.inputs === inputs ? getQuestion(db, id) : null;
      if (q) questions.push({question: q, provenance: stored!.provenance as Record<string, unknown>, unchanged: true});
      return Boolean(q);
    };
    const save = (q: Question, provenance: Record<string, unknown>, validations: Record<string, unknown>) => {
      // one question, whole or not at all; replacing one an author reviewed is recorded
      writeTx(db, () => {
        const review = listReviews(db, q.id).at(-1);
        // the question as the author left it, kept in the review that says it was built again
        const previous = review && review.action !== 'rebuilt' ? getQuestion(db, q.id) : null;
        insertQuestion(db, validateQuestion(q), provenance, validations);
        clearExclusion(db, q.instance, q.type, q.agent);
        if (review && previous)
          addReview(db, {
            question: q.id,
            reviewer: 'questions build',
            action: 'rebuilt',
            note: `built again (was ${review.action} by ${review.reviewer})`,
            previous,
          });
      });
      questions.push({question: q, provenance, unchanged: false});
    };

    partDone(); // the validation runs
    // 2. end-to-end intent (§5.2.2)
    if (o.types.includes('e2e_intent')) {
      const id = `${o.instance}/built/e2e_intent`;
      const inputs = sha(
        'e2e_intent',
        String(BUILDER_VERSION),
        o.generator?.name ?? 'offline',
        o.instance,
        o.buggyDir,
        o.buggyRev ?? '',
        o.test,
        testText,
        fix,
        String(seed),
      );
      progress('e2e_intent', 'finding the expected expression');
      const exp = unchanged(id, inputs)
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
      if (!exp) progress('e2e_intent', 'unchanged: built before from the same inputs');
      else if ('error' in exp) exclude('e2e_intent', `no expected expression: ${exp.error}`);
      else {
        let candidates: {text: string; how: string}[];
        let mut: {mutants: {text: string; how: string}[]} | {error: string};
        let unusable: {text: string; reason: string}[] = [];
        if (o.generator) {
          progress('e2e_intent', `asking ${o.generator.name} for distractors`);
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
          progress('e2e_intent', `validating candidate ${i + 1}/${candidates.length}: ${c.text}`);
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
          exclude(
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
          save(
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
            },
            validations,
          );
        }
      }
    }

    if (o.types.includes('e2e_intent')) partDone();
    // 3. end-to-end effect, one per agent patch (§5.2.3)
    if (o.types.includes('e2e_effect')) {
      const asserts = assertLines(testText, testPathOf(o.test));
      const effectBase = parts.done;
      // the test function that runs (its decorators too), numbered as in its file; a test script
      // given apart (--pbt, a model's) is shown whole, as ExplainBench shows its scripts
      const effectContext =
        pbtText === null ? testFunctionContext(testText, testPathOf(o.test)) : numbered(testText, 1);
      for (const [index, agent] of o.agentPatches.entries()) {
        parts.done = effectBase + index;
        const id = `${o.instance}/built/e2e_effect/${agent.name}`;
        const spec = patchedSpec(o, agent.file);
        const patchText = readFileSync(agent.file, 'utf8');
        const inputs = sha(
          'e2e_effect',
          String(BUILDER_VERSION),
          o.instance,
          o.buggyDir,
          o.buggyRev ?? '',
          o.test,
          testText,
          patchText,
          String(seed),
        );
        if (unchanged(id, inputs)) continue;
        progress('e2e_effect', `running the test with ${agent.name}'s patch`);
        let aw: Workspace;
        try {
          aw = await prepareWorkspace(spec, runner);
        } catch (error) {
          exclude('e2e_effect', (error as Error).message, agent.name);
          continue;
        }
        try {
          writeFixedTestFile(aw.patched, testText, file);
          const after = [await step.outcome(aw.patched), await step.outcome(aw.patched)];
          if (!sameOutcome(after[0]!, after[1]!)) {
            exclude(
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
            progress('e2e_effect', `asking ${o.generator.name} for other ways ${o.test} could fail`);
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
                  : {how: distractors.find(d => d.text === c.text)?.how, observed: 'never'},
              ]),
          );
          save(
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
                      ...(written.length
                        ? {}
                        : {fallback: 'no usable failure from the model: the offline distractors'}),
                    },
                  }
                : {}),
              selection: {method: 'MMR', lambda: MMR_LAMBDA, picked: distractors.map(d => d.text), scores: pick.scores},
            },
            validations,
          );
        } finally {
          aw.cleanup();
        }
      }
      parts.done = effectBase + o.agentPatches.length;
    }
    // 4. local intent (the fix's delta point) and local effect (each agent patch's), §5.3
    if (o.types.includes('local_intent') || o.types.includes('local_effect')) {
      const local = new LocalBuilder(db, o, step, runner, {
        exclude,
        unchanged,
        save,
        progress,
        base,
        seed,
        testText,
        fix,
        hypothesis: hypothesis ?? undefined,
      });
      const intent = await local.intent(ws);
      partDone();
      if (o.types.includes('local_effect')) {
        for (const agent of o.agentPatches) {
          await local.effect(ws, agent, intent);
          partDone();
        }
      }
    }
    return {questions, excluded};
  } finally {
    ws.cleanup();
    if (hypothesisDir) forget(hypothesisDir);
  }
}

/** The error of evaluating __return__ where the call has not returned yet (not an exception the call raised). */
export const notReturnedYet = (e: {type: string; message?: string}) =>
  /(^|\.)NameError$/.test(e.type) && /'__return__'/.test(e.message ?? '');

/** The first and last line of the test function (by indentation), or null. */
function functionLines(text: string, fnPath: string): [number, number] | null {
  const name = fnPath.split('::').at(-1)!.split('[')[0]!;
  const lines = text.split('\n');
  const start = lines.findIndex(l =>
    new RegExp(`^\\s*(async\\s+)?def\\s+${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\(`).test(l),
  );
  return start < 0 ? null : [start + 1, blockEnd(lines, start + 1)];
}

/** The test function's lines with the decorators above it, numbered as in the file; the whole file when the function is not found. */
export function testFunctionContext(text: string, fnPath: string): string {
  const range = functionLines(text, fnPath);
  if (!range) return numbered(text, 1);
  const lines = text.split('\n');
  const indent = /^\s*/.exec(lines[range[0] - 1]!)![0];
  // up over its decorators, a decorator's arguments over several lines included
  let first = range[0];
  for (let k = range[0] - 1; k >= 1; k--) {
    const line = lines[k - 1]!;
    if (!line.trim()) break;
    if (line.startsWith(`${indent}@`)) first = k;
    else if (!(line.startsWith(`${indent} `) || line.startsWith(`${indent}\t`) || /^\s*[)\]}]/.test(line))) break;
  }
  return numbered(lines.slice(first - 1, range[1]).join('\n'), first);
}

/** The prompt for end-to-end effect distractors (§5.2.3): other lines and exceptions. */
function effectPrompt(test: string, before: string, after: string): string {
  return [
    'A test (lines numbered) was run before and after a patch:',
    '',
    test,
    '',
    `Before the patch: ${before}`,
    `After the patch: ${after}`,
    '',
    'Write 4 other plausible but wrong results, each as "line N, ExceptionName" (a line of the',
    'test function where it could fail, and the exception), one per line, nothing else.',
  ].join('\n');
}

/** Line numbers of the assert statements of the test function (a plain scan: `assert` at the
 * start of a line of the function's body). */
function assertLines(text: string, fnPath: string): number[] {
  const range = functionLines(text, fnPath);
  if (!range) return [];
  const lines = text.split('\n');
  const out: number[] = [];
  for (let n = range[0] + 1; n <= range[1]; n++) if (/^\s*assert\b/.test(lines[n - 1]!)) out.push(n);
  return out;
}

const ordinal = (n: number) =>
  `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;

/** The parameter names of a one-line `def` (null when the line is not one): defaults,
 * annotations and stars dropped. */
export function parametersOf(defLine: string): string[] | null {
  const m = /^\s*(?:async\s+)?def\s+\w+\s*\((.*)\)\s*(?:->.*)?:/.exec(defLine);
  if (!m) return null;
  return m[1]!
    .split(',')
    .map(p =>
      p
        .split(/[:=]/)[0]!
        .replace(/^\s*\*{1,2}/, '')
        .trim(),
    )
    .filter(p => p && p !== '/' && p !== '*');
}

/** A value as a question shows it (a function's inputs). */
const shown = (v: unknown) => formatValue(v, 200);

/** The last line (1-based) of the block whose header is line `first`: the lines after it that are
 * more indented (or blank, or closing a bracket at its indent), trailing blank lines left out. */
function blockEnd(lines: string[], first: number): number {
  const indent = /^\s*/.exec(lines[first - 1] ?? '')![0].length;
  let end = first;
  for (let i = first; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.trim() && /^\s*/.exec(l)![0].length <= indent && !/^\s*[)\]}]/.test(l)) break;
    if (l.trim()) end = i + 1;
  }
  return end;
}

/** The function around `defLine` in `source` (by indentation). */
function functionSource(source: string[], defLine: number): string {
  return source.slice(defLine - 1, blockEnd(source, defLine)).join('\n');
}

/** Candidate expressions at a delta point, offline: names in scope, len() of sized values,
 * attribute reads of recorded objects, simple comparisons. */
function localCandidates(scopes: (Map<string, unknown> | null)[], limit = 20): {text: string; how: string}[] {
  const out: {text: string; how: string}[] = [];
  const seen = new Set<string>();
  const add = (text: string, how: string) => {
    if (!seen.has(text) && out.length < limit) {
      seen.add(text);
      out.push({text, how});
    }
  };
  const values = new Map<string, unknown>();
  for (const scope of scopes) for (const [k, v] of scope ?? []) if (!values.has(k)) values.set(k, v);
  const plain = [...values].filter(
    ([k, v]) =>
      /^[A-Za-z_]\w*$/.test(k) && !k.startsWith('__') && !(isObj(v) && ('$fn' in v || '$type' in v || '$module' in v)),
  );
  for (const [k] of plain) add(k, 'a variable in scope');
  for (const [k, v] of plain) {
    if (
      typeof v === 'string' ||
      Array.isArray(v) ||
      (isObj(v) && ('$dict' in v || '$tuple' in v || '$set' in v || '$frozenset' in v))
    )
      add(`len(${k})`, 'the length of a sized value');
    if (isObj(v) && isObj(v.attrs))
      for (const a of Object.keys(v.attrs)
        .filter(a => /^[A-Za-z]\w*$/.test(a))
        .slice(0, 3))
        add(`${k}.${a}`, 'an attribute read');
    if (typeof v === 'number') add(`${k} > 0`, 'a comparison');
    if (v === null) add(`${k} is None`, 'a comparison');
  }
  return out;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export type EvalResult = {value?: unknown; error?: {type: string; message?: string}};

/** "Changed" (the one definition, also in readme.md): a different value, an exception on one
 * side only, or a different exception type or message. */
export function changed(b: EvalResult, p: EvalResult): boolean {
  if (b.error || p.error)
    return !b.error || !p.error || b.error.type !== p.error.type || (b.error.message ?? '') !== (p.error.message ?? '');
  return JSON.stringify(b.value) !== JSON.stringify(p.value);
}

/** Expressions evaluated by the tracer at a point of the test's run on one tree (`deltatrace eval`). */
export async function evaluateAt(
  runner: PythonRunner,
  o: {seed: number | null; timeoutS: number; test: string; hypothesis?: HypothesisPlan},
  tree: string,
  point: {file: string; line: number; hit: number; timing: string},
  exprs: string[],
): Promise<{reached: boolean; results: Map<string, EvalResult>; note?: string}> {
  const h = o.hypothesis;
  const hypothesis =
    h && h.mode !== 'off'
      ? ['--hypothesis', h.mode, ...(h.mode === 'replay' && h.db ? ['--hypothesis-db', h.db] : [])]
      : [];
  const args = [
    '--root',
    tree,
    '--at',
    `${point.file}:${point.line}`,
    '--hit',
    String(point.hit),
    '--timing',
    point.timing,
    ...seedArgs(o.seed),
    ...hypothesis,
  ];
  // the expressions go over stdin: a long candidate must not overflow the argument list
  args.push('--exprs-stdin', '--', o.test);
  const r = await runEval<{reached: boolean; hits_seen: number; results: ({expr: string} & EvalResult)[]}>(
    runner,
    args,
    {
      cwd: tree,
      timeoutMs: o.timeoutS * 1000,
      writable: [tree],
      readable: h?.mode === 'replay' && h.db ? [h.db] : [],
      testbed: tree,
      input: JSON.stringify(exprs),
    },
  );
  if (!r.answer) return {reached: false, results: new Map(), note: r.why};
  const out = r.answer;
  return {
    reached: out.reached,
    results: new Map(out.results.map(x => [x.expr, x])),
    ...(out.reached ? {} : {note: `reached ${point.file}:${point.line} ${out.hits_seen} times, not ${point.hit}`}),
  };
}

interface LocalContext {
  exclude: (stage: string, reason: string, agent?: string) => void;
  unchanged: (id: string, inputs: string) => boolean;
  save: (q: Question, provenance: Record<string, unknown>, validations: Record<string, unknown>) => void;
  progress: (stage: string, detail: string) => void;
  base: Record<string, unknown>;
  seed: number;
  testText: string;
  fix: string;
  /** a property-based test's plan: the pair is traced and expressions evaluated on its example(s) */
  hypothesis?: HypothesisPlan;
}

interface IntentResult {
  context: Record<string, unknown>;
  expressions: string[];
}

class LocalBuilder {
  constructor(
    readonly db: Db,
    readonly o: BuildOptions,
    readonly step: Step,
    readonly runner: PythonRunner,
    readonly c: LocalContext,
  ) {}

  /**
   * The pair's delta point: a pair already traced from the same change (the same instance, test,
   * diff and seed, with a complete delta) is used as it is — the demo's own pairs, or a `trace`
   * run before; otherwise the pair is traced and stored, as `trace` does.
   */
  private async delta(buggyTree: string, patchedTree: string, label: string, kind: 'gold' | 'agent') {
    const {diff} = await changesBetween(this.runner, buggyTree, patchedTree);
    const seed = this.o.seed;
    const known =
      seed === null ? null : tracedPairFor(this.db, {instance: this.o.instance, test: this.o.test, patch: diff, seed});
    if (known !== null) {
      this.c.progress(
        kind === 'gold' ? 'local_intent' : 'local_effect',
        `using traced pair #${known} (the same change, test and seed)`,
      );
      const delta = latestDelta(this.db, known)!;
      return {r: {pair: known, delta}, opened: bothTraces(this.db, known)};
    }
    const r = await tracePair(
      this.db,
      {kind: 'dirs', buggyDir: buggyTree, patchedDir: patchedTree},
      {
        python: this.o.python,
        test: this.o.test,
        instance: this.o.instance,
        label,
        versionKind: kind,
        ...(this.c.hypothesis ? {hypothesis: this.c.hypothesis} : {}),
        sandbox: this.o.sandbox,
        seed: this.o.seed,
        passEnv: this.o.passEnv,
        pytestPlugins: false,
        limits: {timeoutS: this.o.timeoutS},
        onProgress: m => this.c.progress(kind === 'gold' ? 'local_intent' : 'local_effect', m),
      },
    );
    return {r, opened: bothTraces(this.db, r.pair)};
  }

  /** Builds the question at a found delta; returns the context and expressions, or a reason. */
  private async atDelta(
    stage: 'local_intent' | 'local_effect',
    id: string,
    inputs: string,
    buggyTree: string,
    patchedTree: string,
    pair: number,
    extra: Record<string, unknown>,
    agent?: string,
  ): Promise<IntentResult | null> {
    // read from the stored traces: the two delta points, without aligning the whole pair
    const pb = deltaPointOf(this.db, pair, 'b');
    const pp = deltaPointOf(this.db, pair, 'p');
    const d = latestDelta(this.db, pair)!;
    if (!pb || !pp) {
      this.c.exclude(
        stage,
        `the delta point (${d.function} line ${d.line}) is not reached on ${pb ? 'the patched' : 'the buggy'} side: no expression can be evaluated on both`,
        agent,
      );
      return null;
    }
    const candidates: {text: string; how: string; expr?: string; scoped?: boolean}[] = localCandidates([
      pb.locals,
      pp.locals,
      pb.inputs,
    ]);
    // the frames return differently (an outcome delta): the call itself is a candidate — its
    // value is what the frame returns, read after its last line as __return__
    const params = parametersOf(pb.source?.[(pb.defLine ?? 0) - 1] ?? '') ?? (pb.inputs ? [...pb.inputs.keys()] : null);
    if (d.kind === 'outcome' && params) {
      const call = `${(d.function ?? pb.fn).replace(/^.*<locals>\./, '')}(${params.filter(k => k !== 'self' && k !== 'cls').join(', ')})`;
      candidates.unshift({
        text: call,
        how: 'the value the function returns (evaluated as __return__ after its last line)',
        expr: '__return__',
      });
    }
    let unusable: {text: string; reason: string}[] = [];
    if (this.o.generator) {
      this.c.progress(stage, `asking ${this.o.generator.name} for candidate expressions`);
      const asked = await this.step.candidatesFromModel(stage, localPrompt(pb, pp, d), buggyTree);
      unusable = asked.dropped;
      for (const c of asked.ok) if (!candidates.some(x => x.text === c.text)) candidates.push(c);
    }
    type Evaluated = (typeof candidates)[number] & {
      buggy: EvalResult;
      patched: EvalResult;
      changed: boolean;
      usable: boolean;
    };
    const attempts: {
      timing: string;
      hit: {buggy: number; patched: number};
      changed: number;
      candidates: number;
      note?: string;
    }[] = [];
    // The delta's own point first; where nothing differs there yet (a line the patch rewrote:
    // before it runs, both sides are alike), after the line, then after its next executions —
    // the first point at which a candidate differs is the question's.
    type EvalTiming = 'before' | 'after' | 'return';
    type EvalPoint = Omit<DeltaPoint, 'timing'> & {timing: EvalTiming};
    const search = async (
      pool: typeof candidates,
    ): Promise<{evaluated: Evaluated[]; at: {b: EvalPoint; p: EvalPoint}} | null> => {
      const exprs = [...new Set(pool.map(x => x.expr ?? x.text))];
      // where the frames return differently (an outcome delta) and nothing near the line tells
      // the sides apart, the end of the call — the point ExplainBench asks at ("the return
      // statement", after): what it returns or raises, and the locals it ends with
      const tries: {timing: EvalTiming; extra: number}[] = [
        {timing: pb.timing, extra: 0},
        ...[0, 1, 2, 3].map(extra => ({timing: 'after' as const, extra})),
        ...(d.kind === 'outcome' ? [{timing: 'return' as const, extra: 0}] : []),
      ].filter((t, i, all) => all.findIndex(x => x.timing === t.timing && x.extra === t.extra) === i);
      let unreached = false;
      for (const t of tries) {
        // a line not reached N times is not reached N+1 times either
        if (unreached && t.timing !== 'return') continue;
        const at = {
          b: {...pb, timing: t.timing, hit: pb.hit + t.extra},
          p: {...pp, timing: t.timing, hit: pp.hit + t.extra},
        };
        this.c.progress(
          stage,
          `evaluating ${exprs.length} candidate expressions ${t.timing === 'return' ? 'at the return of the call that runs' : t.timing} ${d.file}:${pb.line} (execution ${at.b.hit}) on both versions`,
        );
        const how = {...this.o, hypothesis: this.c.hypothesis};
        const [eb, ep] = await Promise.all([
          evaluateAt(this.runner, how, buggyTree, at.b, exprs),
          evaluateAt(this.runner, how, patchedTree, at.p, exprs),
        ]);
        if (!eb.reached || !ep.reached) {
          attempts.push({
            timing: t.timing,
            hit: {buggy: at.b.hit, patched: at.p.hit},
            changed: 0,
            candidates: pool.length,
            note: `not reached (${!eb.reached ? `buggy: ${eb.note}` : `patched: ${ep.note}`})`,
          });
          unreached = true;
          continue;
        }
        const evaluated = pool.map(x => {
          const b = eb.results.get(x.expr ?? x.text) ?? {error: {type: 'NoResult'}};
          const p = ep.results.get(x.expr ?? x.text) ?? {error: {type: 'NoResult'}};
          // the same exception on both sides: not evaluable here, neither changed nor a distractor;
          // a part of a line that names what one side does not have there: not evaluable either
          // the value returned (__return__) is there only at the end of the call: elsewhere not evaluable
          const outOfScope = [b, p].some(
            r =>
              r.error &&
              (x.scoped === true
                ? /(^|\.)(NameError|UnboundLocalError)$/.test(r.error.type)
                : x.expr === '__return__' && notReturnedYet(r.error)),
          );
          const differs = !outOfScope && changed(b, p);
          const usable = differs || (!outOfScope && !b.error && !p.error);
          return {...x, buggy: b, patched: p, changed: differs, usable};
        });
        const n = evaluated.filter(x => x.changed).length;
        const same = evaluated.filter(x => x.usable && !x.changed).length;
        attempts.push({
          timing: t.timing,
          hit: {buggy: at.b.hit, patched: at.p.hit},
          changed: n,
          candidates: pool.length,
        });
        if (n > 0 && same > 0) return {evaluated, at};
      }
      return null;
    };
    let found = candidates.length ? await search(candidates) : null;
    if (!found) {
      // the names in scope do not tell the sides apart there (a fix that returns or raises early
      // changes no name): the parts of the delta's line on each side — calls, comparisons,
      // attribute reads, arithmetic, subscripts, lengths; a name one side lacks there is out of
      // scope, not a change
      const parts: typeof candidates = [];
      for (const [tree, p] of [
        [buggyTree, pb],
        [patchedTree, pp],
      ] as const) {
        const sub = await this.step.parseOnly<{candidates: {text: string; how: string}[]}>(
          ['subexprs', '--file', join(tree, p.file), '--line', String(p.line)],
          tree,
        );
        if ('error' in sub) continue;
        for (const c of sub.candidates)
          if (![...candidates, ...parts].some(x => (x.expr ?? x.text) === c.text)) parts.push({...c, scoped: true});
      }
      if (parts.length) found = await search([...candidates, ...parts]);
    }
    if (!found && !attempts.length) {
      this.c.exclude(
        stage,
        `no candidate expression at ${d.file}:${d.line}: nothing recorded in scope there and no part of the line to evaluate`,
        agent,
      );
      return null;
    }
    if (!found) {
      this.c.exclude(
        stage,
        `no point near the delta (${d.function} line ${d.line}) where some candidates change and others keep their value: ${attempts.map(a => `${a.timing === 'return' ? 'at the return of the call of' : a.timing} execution ${a.hit.buggy}: ${a.note ?? `${a.changed} of ${a.candidates} changed`}`).join('; ')}`,
        agent,
      );
      return null;
    }
    const {evaluated} = found;
    const point = found.at.b;
    const changedOnes = evaluated.filter(x => x.changed);
    const same = evaluated.filter(x => x.usable && !x.changed);
    const correct = pickCorrect(
      changedOnes.map(x => x.text),
      same.map(x => x.text),
      codePointDistance,
    )!;
    const key = changedOnes[correct.index]!;
    const pick = mmr(
      key.text,
      same.map(x => x.text),
      DISTRACTORS,
      codePointDistance,
    );
    const distractors = pick.picked.map(i => same[i]!);
    const source = pb.source ?? [];
    const context = {
      function: pb.defLine ? functionSource(source, pb.defLine) : `(source of ${pb.fn} not recorded)`,
      inputs: pb.inputs ? `{${[...pb.inputs].map(([k, v]) => `'${k}': ${shown(v)}`).join(', ')}}` : '(not recorded)',
      // at the end of the call: ExplainBench's words for it, and whether the call raised
      ...(point.timing === 'return'
        ? {
            line: evaluated.some(x => x.expr === '__return__' && (x.buggy.error || x.patched.error))
              ? 'The end of the provided function: its return statement, or the exception it raises'
              : 'The return statement in the provided function',
            timing: 'after',
            call: `the call in which ${(source[pb.line - 1] ?? '').trim()} (line ${pb.line}) runs${point.hit > 1 ? ` the ${ordinal(point.hit)} time` : ''}`,
          }
        : {
            line: `${(source[pb.line - 1] ?? '').trim()} (line ${pb.line})`,
            timing: point.timing,
            ...(point.hit > 1 ? {execution: `the ${ordinal(point.hit)} time the line runs`} : {}),
          }),
    };
    const options = seededOrder(
      [
        {text: key.text, role: 'correct' as const},
        ...distractors.map(x => ({text: x.text, role: 'distractor' as const})),
      ],
      seedOf(this.c.seed, id),
    );
    const choices = stage === 'local_effect' ? labelledEffect(options) : labelled(options);
    const q: Question = {
      id,
      instance: this.o.instance,
      type: stage,
      trajectory: null,
      agent: agent ?? null,
      context,
      question:
        stage === 'local_intent'
          ? 'Within the context of the provided function and inputs, at the specified timing point relative to the specified line, which expression best describes the developer-intended change?'
          : "Within the context of the provided function and inputs, at the specified timing point relative to the specified line, which expression's value does the patch change?",
      choices,
      answer: [choices.find(c => c.role === 'correct')!.label],
    };
    const validations: Record<string, unknown> = Object.fromEntries(
      choices
        .filter(c => c.role === 'correct' || c.role === 'distractor')
        .map(c => [c.label, evaluated.find(x => x.text === c.text)]),
    );
    const none = choices.find(c => c.role === 'no_effect');
    if (none)
      validations[none.label] = {wrong_because: `the traces differ: ${d.kind} delta in ${d.function} line ${d.line}`};
    this.c.save(
      q,
      {
        ...this.c.base,
        inputs,
        ...extra,
        delta_point: {
          buggy: {...pb, locals: undefined, inputs: undefined, source: undefined},
          patched: {...pp, locals: undefined, inputs: undefined, source: undefined},
        },
        evaluated_at: {
          buggy: {...found.at.b, locals: undefined, inputs: undefined, source: undefined},
          patched: {...found.at.p, locals: undefined, inputs: undefined, source: undefined},
        },
        attempts,
        ...(unusable.length ? {unusable} : {}),
        ...(this.o.generator
          ? {model: {name: this.o.generator.name, calls: this.step.log.filter(l => l.stage === stage)}}
          : {}),
        changed_means:
          'a different value, an exception on one side only, or a different exception type or message; unchanged: the same value on both sides (the same exception on both: not evaluable there, left out)',
        candidates: evaluated,
        selection: {
          correct: {
            method: 'Eq. 2: mean normalized Levenshtein similarity to the unchanged candidates',
            scores: Object.fromEntries(changedOnes.map((x, i) => [x.text, correct.scores[i]])),
          },
          distractors: {method: 'MMR', lambda: MMR_LAMBDA, picked: distractors.map(x => x.text), scores: pick.scores},
        },
      },
      validations,
    );
    return {context, expressions: [key.text, ...distractors.map(x => x.text)]};
  }

  async intent(ws: Workspace): Promise<IntentResult | null> {
    const id = `${this.o.instance}/built/local_intent`;
    const inputs = sha(
      'local_intent',
      String(BUILDER_VERSION),
      this.o.generator?.name ?? 'offline',
      this.o.instance,
      this.o.buggyDir,
      this.o.buggyRev ?? '',
      this.o.test,
      this.c.testText,
      this.c.fix,
      String(this.c.seed),
    );
    this.c.progress('local_intent', 'tracing the buggy and fixed versions for the delta point');
    const {r, opened} = await this.delta(ws.buggy, ws.patched, 'gold (questions build)', 'gold');
    if (!opened) {
      this.c.exclude('local_intent', 'the traced pair cannot be opened');
      return null;
    }
    if (r.delta.status === 'incomplete') {
      this.c.exclude('local_intent', `the traces are incomplete: ${r.delta.reason ?? ''}`);
      return null;
    }
    if (r.delta.status === 'none') {
      this.c.exclude(
        'local_intent',
        `the fix has no effect on this test's path (delta ∅ on complete traces: ${r.delta.reason ?? ''})`,
      );
      return null;
    }
    if (this.c.unchanged(id, inputs)) {
      const q = getQuestion(this.db, id)!;
      return {
        context: q.context,
        expressions: q.choices.filter(c => c.role === 'correct' || c.role === 'distractor').map(c => c.text),
      };
    }
    return this.atDelta('local_intent', id, inputs, ws.buggy, ws.patched, r.pair, {pair: r.pair, delta: r.delta.id});
  }

  async effect(ws: Workspace, agent: {name: string; file: string}, intent: IntentResult | null): Promise<void> {
    const id = `${this.o.instance}/built/local_effect/${agent.name}`;
    const patchText = readFileSync(agent.file, 'utf8');
    const inputs = sha(
      'local_effect',
      String(BUILDER_VERSION),
      this.o.generator?.name ?? 'offline',
      this.o.instance,
      this.o.buggyDir,
      this.o.buggyRev ?? '',
      this.o.test,
      this.c.testText,
      patchText,
      String(this.c.seed),
    );
    if (this.c.unchanged(id, inputs)) return;
    let aw: Workspace;
    try {
      aw = await prepareWorkspace(patchedSpec(this.o, agent.file), this.runner);
    } catch (error) {
      this.c.exclude('local_effect', (error as Error).message, agent.name);
      return;
    }
    try {
      writeFixedTestFile(aw.patched, this.c.testText, testFileOf(this.o.test));
      this.c.progress('local_effect', `tracing the buggy version and ${agent.name}'s patch`);
      const {r, opened} = await this.delta(ws.buggy, aw.patched, `${agent.name} (questions build)`, 'agent');
      if (!opened || r.delta.status === 'incomplete') {
        // never "no effect" on incomplete traces
        this.c.exclude(
          'local_effect',
          `the traces are incomplete: ${r.delta.reason ?? 'the pair cannot be opened'}`,
          agent.name,
        );
        return;
      }
      if (r.delta.status === 'found') {
        await this.atDelta(
          'local_effect',
          id,
          inputs,
          ws.buggy,
          aw.patched,
          r.pair,
          {pair: r.pair, delta: r.delta.id, agent: agent.name, patch: agent.file, patch_text: patchText},
          agent.name,
        );
        return;
      }
      // ∅ on complete traces: "the patch has no effect" is the key, at the place the fix changes
      if (!intent) {
        this.c.exclude(
          'local_effect',
          "the patch has no effect on the test, but there is no local intent question to ask it at (the fix's delta point)",
          agent.name,
        );
        return;
      }
      const options = seededOrder(
        intent.expressions.slice(0, DISTRACTORS + 1).map(text => ({text, role: 'distractor' as const})),
        seedOf(this.c.seed, id),
      );
      const choices = labelledEffect(options);
      const q: Question = {
        id,
        instance: this.o.instance,
        type: 'local_effect',
        trajectory: null,
        agent: agent.name,
        context: intent.context,
        question:
          "Within the context of the provided function and inputs, at the specified timing point relative to the specified line, which expression's value does the patch change?",
        choices,
        answer: [choices.find(c => c.role === 'no_effect')!.label],
      };
      const evidence = {
        delta: 'none',
        reason: r.delta.reason ?? 'no behavioural difference on complete traces',
        steps_compared: r.delta.stepsCompared,
        frames_entered: r.delta.framesEntered,
      };
      const validations = Object.fromEntries(
        choices
          .filter(c => c.role !== 'insufficient')
          .map(c => [
            c.label,
            c.role === 'no_effect'
              ? evidence
              : {
                  wrong_because: 'the patch changes nothing the test runs, so no expression changes',
                  from: 'the local intent question of this instance',
                },
          ]),
      );
      this.c.save(
        q,
        {
          ...this.c.base,
          inputs,
          pair: r.pair,
          delta: r.delta.id,
          agent: agent.name,
          patch: agent.file,
          patch_text: patchText,
          no_effect: evidence,
        },
        validations,
      );
    } finally {
      aw.cleanup();
    }
  }
}

/** Local effect's choices: the options, "the patch has no effect", then "insufficient". */
function labelledEffect(options: {text: string; role: Choice['role']}[]): Choice[] {
  return [
    ...options,
    {text: NO_EFFECT_TEXT, role: 'no_effect' as const},
    {text: INSUFFICIENT_TEXT, role: 'insufficient' as const},
  ].map((c, i) => ({label: LABELS[i]!, text: c.text, role: c.role}));
}

export interface QualityReport {
  question: string;
  model: string;
  /** a blank explanation must never be answered right (ExplainBench §5.4) */
  blank: {correct: number; n: number};
  /** the question and its options alone, no context: a guessable question is answered right */
  choices_only: {correct: number; n: number};
  /** the lexical baseline on the stored explanations of the instance (word overlap) */
  lexical: {correct: number; n: number};
  /** the automatic flags the question now has (the annotation checks) */
  flags: string[];
}

/**
 * The checks every built question gets (§5.4): scored from a blank explanation with `model`
 * (each effect question against a blank explanation of its agent), from the options alone, and
 * by the lexical baseline on the stored explanations; the answers are stored like any other,
 * so the automatic flags (`deltalens flags`) pick them up.
 */
export async function qualityChecks(db: Db, built: Question[], model: QaModel, samples = 3): Promise<QualityReport[]> {
  writeTx(db, () => {
    for (const q of built)
      ensureExplanation(db, {
        instance: q.instance,
        agent: q.agent ?? '(any agent)',
        kind: 'blank',
        text: '',
        source: 'deltalens questions build (quality check)',
      });
  });
  const lexical = lexicalModel();
  const questions = new Set(built.map(q => q.id));
  await scoreExplanations(db, {model, samples, concurrency: 4, kinds: ['blank'], questions});
  await scoreExplanations(db, {model, samples, concurrency: 4, kinds: ['blank'], questions, choicesOnly: true});
  await scoreExplanations(db, {
    model: lexical,
    samples: 1,
    concurrency: 1,
    kinds: ['original', 'audited', 'custom'],
    questions,
  });
  const out: QualityReport[] = [];
  for (const q of built) {
    out.push({
      question: q.id,
      model: model.name,
      blank: answerTally(db, q.id, model.name, ['blank']),
      choices_only: answerTally(db, q.id, modelName(model, true), ['blank']),
      lexical: answerTally(db, q.id, lexical.name, ['original', 'audited', 'custom']),
      flags: automaticFlags(db, q.id).map(f => f.reason),
    });
  }
  return out;
}

/** The prompt for end-to-end intent distractors (ExplainBench §5.2.2): similar, wrong. */
function intentPrompt(masked: string, expected: string): string {
  return [
    'A test checks a bug fix. Its expected-behaviour expression is masked as [[MASKED]]:',
    '',
    masked,
    '',
    `The correct expression is: ${expected}`,
    '',
    'Write 6 alternative Python expressions that could plausibly replace [[MASKED]] but describe',
    'different (wrong) behaviour: similar in form to the correct one. One expression per line,',
    'nothing else on the line, no explanation.',
  ].join('\n');
}

/** The prompt for local candidates (§5.3): the function on the buggy side, the line, the variables
 * at the delta point with the ones that differ between the versions marked. */
function localPrompt(pb: DeltaPoint, pp: DeltaPoint, d: {function: string | null; line: number | null}): string {
  const vars = (p: DeltaPoint) => [...(p.locals ?? new Map())].map(([k, v]) => `${k} = ${formatValue(v, 120)}`);
  const bv = vars(pb);
  const pv = new Set(vars(pp));
  const source = pb.defLine && pb.source ? functionSource(pb.source, pb.defLine) : '';
  return [
    `A patch changes the behaviour of ${d.function} at line ${d.line}. The function before the patch:`,
    '',
    source,
    '',
    `At line ${pb.line} (${pb.timing} it runs), the variables are (≠: differs after the patch):`,
    ...bv.map(v => `  ${pv.has(v) ? ' ' : '≠'} ${v}`),
    '',
    'Write 8 Python expressions over these variables that can be evaluated at that point: some',
    'whose value the patch changes and some whose value stays the same. One expression per line,',
    'nothing else on the line.',
  ].join('\n');
}

interface PbtAttempt {
  attempt: number;
  prompt: string;
  raw: string | null;
  /** why it was not used, or "used" */
  reason: string;
  buggy?: TestOutcome[];
  fixed?: TestOutcome[];
}

/**
 * The bug-reproducing test written by the model (ExplainBench §5.2.1): from the issue text, the
 * gold patch and the fix's own test; each attempt is run twice on each version and kept only if
 * it fails before and passes after, the same way each time. A failed attempt's reason goes into
 * the next prompt. Returns the file to use as --pbt, and every attempt.
 */
async function generatePbt(
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

function pbtPrompt(issue: string, gold: string, own: string | null, lastFailure: string | null): string {
  return [
    'Write a bug-reproducing property-based test (pytest with hypothesis) for this issue. It must',
    'fail on the current (buggy) code and pass once the developer fix below is applied.',
    '',
    'Issue:',
    issue,
    '',
    'The developer fix:',
    gold,
    ...(own ? ['', "The developer's own test file:", own] : []),
    ...(lastFailure ? ['', `Your previous test was not usable: ${lastFailure}. Write a different one.`] : []),
    '',
    'Answer with one ```python code block holding the whole test file (imports included), one',
    'test_ function.',
  ].join('\n');
}

/** Whether a pair has both its traces (a pair without one cannot give a delta point). */
function bothTraces(db: Db, pair: number): boolean {
  const p = getPair(db, pair);
  return Boolean(p?.buggyTrace && p.patchedTrace && getTrace(db, p.buggyTrace) && getTrace(db, p.patchedTrace));
}
