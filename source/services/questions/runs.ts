/**
 * Running the test in the sandbox for questions build: its outcome on a tree, the generating
 * model's answers (every call logged for the provenance), the parse-only helpers, and
 * expressions evaluated by the tracer at a point of the test's run.
 */
import type {EvalResult} from '../../core/questions/candidates.js';
import type {TestOutcome} from '../../core/questions/outcome.js';
import type {ModelCall} from '../../core/questions/provenance.js';
import {runEval, runPython, toolsRunner, type PythonRunner} from '../python.js';
import {seedArgs, type HypothesisPlan} from '../tracing.js';
import type {BuildOptions} from './options.js';

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
  readonly log: ModelCall[] = [];

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
