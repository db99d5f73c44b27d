import {spawnSync} from 'node:child_process';
import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {ROOT, tempDir} from '../helpers/files.js';

const BIN = join(ROOT, 'bin', 'deltalens.js');
const QUESTIONS = join(ROOT, 'sample-data', 'questions', 'demo-questions.jsonl');

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], {cwd, encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}});
  return {code: r.status, stdout: r.stdout, stderr: r.stderr};
}

describe('questions, explanations, score and report commands', () => {
  it('round-trips a question file through import and export', () => {
    const cwd = tempDir();
    expect(run(['questions', 'import', QUESTIONS], cwd).stdout).toContain(
      'imported 24 questions (3 e2e_intent, 9 e2e_effect, 3 local_intent, 9 local_effect)',
    );
    expect(run(['questions', 'export', 'out.jsonl'], cwd).code).toBe(0);
    const parse = (text: string) =>
      text
        .trim()
        .split('\n')
        .map(l => JSON.parse(l))
        .sort((a, b) => a.id.localeCompare(b.id));
    expect(parse(readFileSync(join(cwd, 'out.jsonl'), 'utf8'))).toEqual(parse(readFileSync(QUESTIONS, 'utf8')));
    // and again: the export of the re-import is byte for byte the first export
    const cwd2 = tempDir();
    run(['questions', 'import', join(cwd, 'out.jsonl')], cwd2);
    run(['questions', 'export', 'out.jsonl'], cwd2);
    expect(readFileSync(join(cwd2, 'out.jsonl'), 'utf8')).toBe(readFileSync(join(cwd, 'out.jsonl'), 'utf8'));
    const list = JSON.parse(
      run(['questions', 'list', '--type', 'e2e_effect', '--instance', 'demo__ledger-1', '--json'], cwd).stdout,
    );
    expect(list.map((q: {agent: string}) => q.agent).sort()).toEqual([
      'demo-agent-correct',
      'demo-agent-ineffective',
      'demo-agent-wrong',
    ]);
  });

  it('a bad line names the line and the field, and nothing is imported', () => {
    const cwd = tempDir();
    const lines = readFileSync(QUESTIONS, 'utf8').trim().split('\n');
    const bad = JSON.parse(lines[3]!);
    bad.answer = 'Q';
    writeFileSync(join(cwd, 'q.jsonl'), [...lines.slice(0, 3), JSON.stringify(bad), ...lines.slice(4)].join('\n'));
    const r = run(['questions', 'import', 'q.jsonl'], cwd);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('line 4');
    expect(r.stderr).toContain('answer: "answer" Q is not a choice');
    // nothing imported: not even an empty store was made, and reading it says so
    expect(existsSync(join(cwd, 'deltalens.db'))).toBe(false);
    expect(run(['questions', 'list', '--json', '--db', 'deltalens.db'], cwd)).toMatchObject({code: 2, stdout: ''});
    const dup = [lines[0], lines[0]].join('\n');
    writeFileSync(join(cwd, 'd.jsonl'), dup);
    expect(run(['questions', 'import', 'd.jsonl'], cwd).stderr).toMatch(/line 2.*duplicate id/);
  });

  it('scores with the lexical baseline, reports it as a baseline, and a second run makes no call', () => {
    const cwd = tempDir();
    run(['import', '--format', 'explainbench', join(ROOT, 'sample-data', 'explainbench')], cwd);
    run(['questions', 'import', QUESTIONS], cwd);
    const explanations = JSON.parse(run(['explanations', 'list', '--json'], cwd).stdout);
    expect(explanations.filter((e: {has_text: boolean}) => !e.has_text).length).toBe(65); // ExplainBench: texts not in the data
    // the ExplainBench explanations have no text: only the demo agents' explanations are answered
    run(['explanations', 'import', join(ROOT, 'sample-data', 'questions', 'demo-explanations.jsonl')], cwd);
    const first = run(['score', '--samples', '2', '--json'], cwd);
    expect(JSON.parse(first.stdout)).toMatchObject({
      model: 'lexical',
      baseline: true,
      answered: 72,
      failed: 0,
      explanations_without_text: 40,
    });
    expect(first.stderr).toMatch(/"progress"/);
    const second = JSON.parse(run(['score', '--samples', '2', '--json'], cwd).stdout);
    expect(second).toMatchObject({answered: 0, cached: 72}); // 9 explanations × 4 questions each × 2 samples
    const report = JSON.parse(run(['report', '--json'], cwd).stdout);
    expect(report.model).toBe('gpt-5-mini-2025-08-07');
    expect(
      report.agents.find((a: {agent: string}) => a.agent === '20250807_mini-v1.7.0_gpt-5-mini').types.e2e_effect,
    ).toMatchObject({n: 5});
    expect(report.checks.published_per_instance).toMatchObject({compared: 1150, agree: 1150});
    expect(run(['score', '--model', 'gpt-x'], cwd)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('needs an API key in $OPENAI_API_KEY'),
    });
    // a model with no stored answers is a usage error, not an empty report
    const nope = run(['report', '--model', 'nope'], cwd);
    expect(nope).toMatchObject({code: 2, stdout: ''});
    expect(nope.stderr).toContain('no answers from model "nope" in this store (stored: ');
    expect(run(['report', '--model', 'lexical', '--json'], cwd).code).toBe(0);
    // an agent's questions with every sample's verdict (the leaderboard's drill-down)
    const mine = JSON.parse(run(['report', '--agent', '20250807_mini-v1.7.0_gpt-5-mini', '--json'], cwd).stdout) as {
      model: string;
      questions: {type: string; correct: number; total: number; samples: {sample: number; verdict: string | null}[]}[];
    };
    expect(mine.model).toBe('gpt-5-mini-2025-08-07');
    expect(mine.questions.length).toBeGreaterThan(0);
    for (const q of mine.questions) {
      expect(q.total).toBe(q.samples.length);
      expect(q.correct).toBe(q.samples.filter(x => x.verdict === 'correct').length);
      expect(q.samples.map(x => x.sample)).toEqual([...q.samples.map(x => x.sample)].sort((a, b) => a - b));
    }
    expect(mine.questions.filter(q => q.type === 'e2e_effect')).toHaveLength(5);
    expect(run(['report', '--agent', 'nobody'], cwd)).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("no answers about nobody's original explanations"),
    });
  });
});

describe('questions build', () => {
  const P = join(ROOT, 'sample-data', 'projects', 'durations');
  const base = [
    'questions',
    'build',
    '--instance',
    'demo__durations-1',
    '--buggy-dir',
    join(P, 'repo'),
    '--gold-patch',
    join(P, 'patches', 'gold.diff'),
    '--test',
    'tests/test_parse.py::test_compound_duration',
  ];

  it('usage errors are one line, exit 2, and create no database', () => {
    const cwd = tempDir();
    const cases: [string[], string][] = [
      [['questions', 'build'], 'needs --instance ID'],
      [[...base, '--fixed-dir', P], 'one of them'],
      [[...base, '--agent-patch', 'nofile'], 'wants NAME=FILE'],
      [[...base, '--agent-patch', 'a=/no/such.diff'], 'no such file'],
      [[...base, '--type', 'e3e'], '--type must be one of'],
      [[...base, '--model', 'gpt-x'], 'needs an API key'],
      [[...base, '--offline', '--model', 'gpt-x'], 'not both'],
      [[...base, '--model', 'lexical'], 'cannot write candidates'],
      [[...base, '--generate-pbt'], '--generate-pbt needs --model'],
      [
        ['questions', 'build', '--instance', 'x', '--buggy-dir', P, '--gold-patch', join(P, 'patches', 'gold.diff')],
        'give the test as --test NODEID',
      ],
      [[...base, '--check-model', 'gpt-x'], 'needs an API key'],
      [['questions', 'build', '--all', '/no/such/dir'], 'not a directory'],
    ];
    for (const [args, message] of cases) {
      const r = run(args, cwd);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(existsSync(join(cwd, 'deltalens.db'))).toBe(false);
  });

  it('--json prints the questions with choices, answer and provenance, the exclusions and the quality checks', () => {
    const cwd = tempDir();
    const r = run(
      [
        ...base,
        '--type',
        'e2e_effect',
        '--agent-patch',
        `ineffective=${join(P, 'patches', 'agent-ineffective.diff')}`,
        '--json',
      ],
      cwd,
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.excluded).toEqual([]);
    expect(out.questions).toHaveLength(1);
    const q = out.questions[0];
    expect(q).toMatchObject({
      id: 'demo__durations-1/built/e2e_effect/ineffective',
      type: 'e2e_effect',
      agent: 'ineffective',
      unchanged: false,
    });
    const text = (l: string) => q.choices.find((c: {label: string}) => c.label === l).text;
    expect(q.answer.map(text)).toEqual([
      'The test failed at line 11 with exception: AssertionError.',
      'The test failed at line 11 with exception: AssertionError.',
    ]);
    expect(q.provenance).toMatchObject({
      origin: 'built',
      generator: 'offline',
      test: 'tests/test_parse.py::test_compound_duration',
    });
    expect(out.quality).toEqual([
      {
        question: q.id,
        model: 'lexical',
        blank: {correct: 0, n: 3},
        choices_only: {correct: 0, n: 3},
        lexical: {correct: 0, n: 0},
        flags: [],
      },
    ]);
    // stored: listed like any question
    expect(JSON.parse(run(['questions', 'list', '--json'], cwd).stdout).map((x: {id: string}) => x.id)).toEqual([q.id]);
    // an author's review: the document to edit, an edit the stored runs refute, one they allow
    const doc = JSON.parse(run(['questions', 'edit', q.id, '--print'], cwd).stdout);
    expect(doc).toMatchObject({question: q.question, answer: q.answer, note: '', context: q.context});
    const passedLabel = doc.choices.find((c: {text: string}) => c.text === 'The test passed.').label;
    writeFileSync(join(cwd, 'bad.json'), JSON.stringify({...doc, answer: [doc.answer[0], passedLabel]}));
    const bad = run(['questions', 'edit', q.id, '--file', 'bad.json', '--json'], cwd);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({
      saved: false,
      problems: [expect.stringContaining('after the patch')],
    });
    // a pasted file as a choice: one line that names the choice, nothing run, no command line printed
    const huge = structuredClone(doc);
    huge.choices.find((c: {role: string}) => c.role === 'distractor').text = 'x'.repeat(10 * 1024 * 1024);
    writeFileSync(join(cwd, 'huge.json'), JSON.stringify(huge));
    const tooLong = run(['questions', 'edit', q.id, '--file', 'huge.json'], cwd);
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr.trim().split('\n')).toHaveLength(1);
    expect(tooLong.stderr).toMatch(/choice [A-Z] is 10,485,760 characters; a choice holds at most 10,000/);
    expect(tooLong.stderr.length).toBeLessThan(400);
    const distractor = doc.choices.find(
      (c: {role: string; text: string}) => c.role === 'distractor' && c.text !== 'The test passed.',
    );
    distractor.text = 'The test failed at line 11 with exception: KeyError.';
    writeFileSync(join(cwd, 'good.json'), JSON.stringify({...doc, note: 'a likelier failure'}));
    const good = run(['questions', 'edit', q.id, '--file', 'good.json'], cwd);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain('edited and saved');
    expect(
      run(['questions', 'review', q.id, '--reject', '--note', 'too easy', '--reviewer', 'bo', '--json'], cwd).stdout,
    ).toContain('"action": "rejected"');
    expect(JSON.parse(run(['questions', 'list', '--json'], cwd).stdout)[0].review).toBe('rejected');
    const exported = run(['questions', 'export', '-'], cwd);
    expect(exported.stdout).toBe('');
    expect(exported.stderr).toContain('left out 1 rejected question(s)');
    expect(
      JSON.parse(run(['questions', 'review', q.id, '--json'], cwd).stdout).reviews.map(
        (x: {action: string; note: string}) => [x.action, x.note],
      ),
    ).toEqual([
      ['edited', 'a likelier failure'],
      ['rejected', 'too easy'],
    ]);
    for (const [args, message] of [
      [['questions', 'review', q.id, '--accept', '--reject'], 'not both'],
      [['questions', 'edit', 'nope', '--print'], 'no question "nope"'],
      [['questions', 'edit', q.id], 'needs a terminal'],
      [['questions', 'edit', q.id, '--file', 'missing.json'], 'no such file'],
    ] as [string[], string][]) {
      const r2 = run(args, cwd);
      expect(r2.code, args.join(' ')).toBe(2);
      expect(r2.stderr).toContain(message);
    }
  }, 60_000);
});

describe('questions export --format explainbench', () => {
  it('writes the ExplainBench dataset layout, and import --format explainbench gives the same questions back', () => {
    const cwd = tempDir();
    run(['questions', 'import', QUESTIONS], cwd);
    // a local question with the execution of its line (not in ExplainBench's own data) survives too
    const lines = readFileSync(QUESTIONS, 'utf8')
      .trim()
      .split('\n')
      .map(l => JSON.parse(l));
    const local = lines.find(q => q.type === 'local_intent');
    writeFileSync(
      join(cwd, 'extra.jsonl'),
      `${JSON.stringify({...local, context: {...local.context, execution: 'the 2nd time the line runs'}})}\n`,
    );
    run(['questions', 'import', 'extra.jsonl'], cwd);
    const r = run(['questions', 'export', '--format', 'explainbench', 'eb', '--json'], cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({exported: 24, skipped: []});
    expect(existsSync(join(cwd, 'eb', 'dataset', 'context', 'e2e_intent.json'))).toBe(true);
    expect(existsSync(join(cwd, 'eb', 'dataset', 'ground_truths', 'local_effect__demo-agent-wrong.json'))).toBe(true);
    const truth = JSON.parse(
      readFileSync(join(cwd, 'eb', 'dataset', 'ground_truths', 'e2e_effect__demo-agent-correct.json'), 'utf8'),
    );
    expect(Object.values(truth)[0]).toEqual({
      before_answer: expect.stringMatching(/^[a-z]$/),
      after_answer: expect.stringMatching(/^[a-z]$/),
    });

    const back = tempDir();
    expect(run(['import', '--format', 'explainbench', join(cwd, 'eb')], back).code).toBe(0);
    const exported = (dir: string) => {
      const out = run(['questions', 'export', '-'], dir)
        .stdout.trim()
        .split('\n')
        .map(l => JSON.parse(l));
      return new Map(
        out.map(q => [
          `${q.type}/${q.agent ?? ''}/${q.instance}`,
          {choices: q.choices, answer: q.answer, context: q.context},
        ]),
      );
    };
    const before = exported(cwd);
    const after = exported(back);
    expect(after.size).toBe(24);
    for (const [slot, q] of before) expect(after.get(slot), slot).toEqual(q);
    expect(after.get(`local_intent//${local.instance}`)!.context.execution).toBe('the 2nd time the line runs');
  });
});

describe('questions build from a git repository and from a test given apart', () => {
  const P = join(ROOT, 'sample-data', 'projects', 'durations');

  it('--repo DIR --buggy REV --fixed REV reads the two revisions and leaves the repository as it was', () => {
    const repo = join(tempDir(), 'repo');
    const git = (...args: string[]) =>
      spawnSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], {cwd: repo, encoding: 'utf8'});
    spawnSync('cp', ['-r', join(P, 'repo'), repo]);
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'buggy');
    git('apply', join(P, 'patches', 'gold.diff'));
    git('commit', '-qam', 'fixed');
    const cwd = tempDir();
    const r = run(
      [
        'questions',
        'build',
        '--instance',
        'demo__durations-1',
        '--repo',
        repo,
        '--buggy',
        'HEAD~1',
        '--fixed',
        'HEAD',
        '--test',
        'tests/test_parse.py::test_compound_duration',
        '--agent-patch',
        `wrong=${join(P, 'patches', 'agent-wrong.diff')}`,
        '--type',
        'e2e_effect',
        '--no-checks',
        '--json',
      ],
      cwd,
    );
    expect(r.code, r.stderr).toBe(0);
    const q = JSON.parse(r.stdout).questions[0];
    expect(q.answer.map((l: string) => q.choices.find((c: {label: string}) => c.label === l).text)).toEqual([
      'The test failed at line 11 with exception: AssertionError.',
      'The test failed at line 11 with exception: AssertionError.',
    ]);
    expect(git('status', '--porcelain').stdout).toBe('');
    expect(git('log', '--oneline').stdout.trim().split('\n')).toHaveLength(2);
  }, 120_000);

  it('--pbt FILE: a property-based test given apart is copied into both trees; its expected expression is masked', () => {
    const cwd = tempDir();
    writeFileSync(
      join(cwd, 'pbt.py'),
      'from hypothesis import given, settings, strategies as st\n\nfrom durations import parse_duration\n\n\n@settings(max_examples=10, deadline=None)\n@given(h=st.integers(1, 9), m=st.integers(1, 59))\ndef test_hours_and_minutes(h, m):\n    assert parse_duration(f"{h}h{m}m") == h * 3600 + m * 60\n',
    );
    const r = run(
      [
        'questions',
        'build',
        '--instance',
        'demo__durations-1',
        '--buggy-dir',
        join(P, 'repo'),
        '--gold-patch',
        join(P, 'patches', 'gold.diff'),
        '--pbt',
        'pbt.py',
        '--type',
        'e2e_intent',
        '--no-checks',
        '--json',
      ],
      cwd,
    );
    expect(r.code, r.stderr).toBe(0);
    const q = JSON.parse(r.stdout).questions[0];
    expect(q.provenance.test).toBe('test_deltalens_pbt.py::test_hours_and_minutes');
    expect(q.choices.find((c: {role: string}) => c.role === 'correct').text).toBe('h * 3600 + m * 60');
    expect(JSON.stringify(q)).toContain('[[MASKED]]');
  }, 120_000);
});

describe('questions compare --explainbench', () => {
  it("puts each built question beside the package's: delta point, key, shared options, totals, and what has no counterpart", () => {
    const cwd = tempDir();
    const eb = join(ROOT, 'sample-data', 'explainbench');
    const fn = 'def to_rotation_matrix(self, v=None):\n    q = self\n    return Matrix([[1]])';
    const built = [
      // the same function, line and timing as the package's; the same key text and one shared distractor
      {
        id: 'sympy__sympy-15349/built/local_intent',
        instance: 'sympy__sympy-15349',
        type: 'local_intent',
        context: {function: fn, inputs: '{}', line: 'return Matrix([[1]]) (line 3)', timing: 'after'},
        question: 'q?',
        choices: [
          {label: 'A', text: '__return__[1, 2].p', role: 'correct'},
          {label: 'B', text: 'str(__return__[0, 2])', role: 'distractor'},
          {label: 'C', text: 'q.a', role: 'distractor'},
          {label: 'D', text: 'Explanation insufficient to answer.', role: 'insufficient'},
        ],
        answer: 'A',
      },
      // another key than the package's
      {
        id: 'sympy__sympy-15349/built/e2e_intent',
        instance: 'sympy__sympy-15349',
        type: 'e2e_intent',
        context: {test: 'assert x == [[MASKED]]'},
        question: 'q?',
        choices: [
          {label: 'A', text: 'Matrix([[1, 0, 0], [0, cos(x), -sin(x)], [0, sin(x), -cos(x)]])', role: 'correct'},
          {label: 'B', text: '0', role: 'distractor'},
          {label: 'C', text: 'Explanation insufficient to answer.', role: 'insufficient'},
        ],
        answer: 'A',
      },
      // an instance the package does not have
      {
        id: 'demo__x-1/built/e2e_intent',
        instance: 'demo__x-1',
        type: 'e2e_intent',
        context: {},
        question: 'q?',
        choices: [
          {label: 'A', text: '1', role: 'correct'},
          {label: 'B', text: 'Explanation insufficient to answer.', role: 'insufficient'},
        ],
        answer: 'A',
      },
      // an imported (not built) question is not compared
      {
        id: 'mine/sympy__sympy-15349',
        instance: 'sympy__sympy-15349',
        type: 'e2e_intent',
        context: {},
        question: 'q?',
        choices: [
          {label: 'A', text: '1', role: 'correct'},
          {label: 'B', text: 'Explanation insufficient to answer.', role: 'insufficient'},
        ],
        answer: 'A',
      },
    ];
    writeFileSync(join(cwd, 'b.jsonl'), built.map(q => JSON.stringify(q)).join('\n'));
    expect(run(['questions', 'import', 'b.jsonl'], cwd).code).toBe(0);
    const r = run(['questions', 'compare', '--explainbench', eb, '--json'], cwd);
    expect(r.code).toBe(0);
    const c = JSON.parse(r.stdout);
    expect(c.rows.map((x: {ours: string}) => x.ours).sort()).toEqual([
      'sympy__sympy-15349/built/e2e_intent',
      'sympy__sympy-15349/built/local_intent',
    ]);
    const local = c.rows.find((x: {type: string}) => x.type === 'local_intent');
    expect(local.theirs).toBe('explainbench/local_intent/sympy__sympy-15349');
    expect(local.point).toMatchObject({
      ours: {function: 'to_rotation_matrix', timing: 'after'},
      theirs: {function: 'to_rotation_matrix', line: 'The return statement in the provided function', timing: 'after'},
      same_function: true,
      same_line: false,
      same_timing: true,
    });
    expect(local.key).toEqual({ours: ['__return__[1, 2].p'], theirs: ['__return__[1, 2].p'], same: true});
    expect(local.choices).toEqual({ours: 3, theirs: 4, shared: ['__return__[1, 2].p', 'str(__return__[0, 2])']});
    const e2e = c.rows.find((x: {type: string}) => x.type === 'e2e_intent');
    expect(e2e.key.same).toBe(false);
    expect(e2e.key.theirs).toEqual(['Matrix([[1, 0, 0], [0, cos(x), -sin(x)], [0, sin(x), cos(x)]])']);
    expect(e2e.point).toBeNull();
    expect(c.totals.local_intent).toEqual({
      compared: 1,
      same_key: 1,
      same_function: 1,
      same_line: 0,
      shared_choices: 0.5,
    });
    expect(c.totals.e2e_intent).toMatchObject({compared: 1, same_key: 0, same_function: null});
    expect(c.unmatched).toEqual([
      {id: 'demo__x-1/built/e2e_intent', reason: 'the package has no question on this instance'},
    ]);
    // the plain form says the same, one block per question and a totals table
    const plain = run(['questions', 'compare', '--explainbench', eb], cwd).stdout;
    expect(plain).toContain('function same, line differs, timing same');
    expect(plain).toMatch(/local_intent\s+1\s+1 of 1 \(100 %\)/);
    expect(plain).toContain('1 built question(s) without a counterpart in the package:');
    // errors name what is wrong, in one line
    const bad = run(['questions', 'compare', '--explainbench', cwd], cwd);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe(
      `deltalens: ${cwd}: not an ExplainBench checkout (expected dataset/context and dataset/ground_truths)`,
    );
    expect(run(['questions', 'compare'], cwd).stderr).toContain('questions compare takes --explainbench DIR');
  });
});
