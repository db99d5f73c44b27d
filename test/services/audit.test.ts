import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {
  AuditInputError,
  continueAudit,
  DEFAULT_BUDGETS,
  runAudit,
  type AuditInputs,
  type AuditRunOptions,
} from '../../source/services/audit.js';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import type {Db} from '../../source/store/db.js';
import {auditMessages} from '../../source/store/audits.js';
import {findExplanation} from '../../source/store/questions.js';
import {lexicalModel} from '../../source/services/qa-models.js';
import {buildReport} from '../../source/services/report.js';
import {scoreExplanations} from '../../source/services/scoring.js';
import {insertDurationsQuestion} from '../helpers/questions.js';
import {freshDb} from '../helpers/db.js';
import {startOpenAiServer, type Call, type Reply} from '../helpers/openai-server.js';

const P = join(PROJECTS_DIR, 'durations');
const TEST =
  'from durations.parse import parse_duration\n\n\ndef test_compound():\n    assert parse_duration("1h30m") == 5400\n';
const REFINED =
  'Revised: the explanation says the patch fixes compound durations, but diff_execution shows test_compound still failing after the patch (AssertionError), with the first difference in parse_duration line 21.';

const inputs: AuditInputs = {
  instance: 'demo__durations-1',
  agent: 'demo-agent-wrong',
  trajectory: null,
  buggyDir: join(P, 'repo'),
  patch: readFileSync(join(P, 'patches', 'agent-wrong.diff'), 'utf8'),
  explanation: 'The bug is fixed: parse_duration now returns the right total for compound durations.',
  issue: "parse_duration('1h30m') returns 1800.0 instead of 5400.",
};

let server: Awaited<ReturnType<typeof startOpenAiServer>>;
let script: (call: Call) => Reply = () => ({answer: ''});
beforeAll(async () => {
  server = await startOpenAiServer(call => script(call));
});
afterAll(() => server?.close());

const options = (o: Partial<AuditRunOptions> = {}): AuditRunOptions => ({
  model: {name: 'auditor', baseURL: server.url, apiKey: 'test-key', maxRetries: 0},
  budgets: DEFAULT_BUDGETS,
  python: process.env.DELTALENS_PYTHON ?? 'python3',
  sandbox: 'prefer', // our own demo project
  toolTimeoutS: 5,
  maxResultChars: 4000,
  ...o,
});

describe('the audit agent, with a local server playing the auditing model', () => {
  let db: Db;
  beforeAll(() => {
    db = freshDb().db;
  });

  it('runs the scripted tool calls — a diff_execution showing the wrong patch failing, a call-graph lookup, a refused write outside the tree, a runaway command cut, arguments that are not JSON — and stores the refined explanation as audited', async () => {
    const steps: Reply[] = [
      {toolCalls: [{name: 'diff_execution', arguments: JSON.stringify({test_code: TEST})}]},
      {toolCalls: [{name: 'inspect_call_graph', arguments: '{"function": "parse_duration"}'}]},
      {toolCalls: [{name: 'write_file', arguments: '{"path": "../../escape.txt", "content": "x"}'}]},
      {toolCalls: [{name: 'bash', arguments: '{"command": "while true; do :; done"}'}]},
      {
        toolCalls: [
          {name: 'diff_execution', arguments: '{test_code: oops'},
          {name: 'teleport', arguments: '{}'},
        ],
      },
      {answer: REFINED},
    ];
    const base = server.calls.length;
    script = call => steps[call.index - base] ?? {answer: REFINED};
    const a = await runAudit(db, inputs, options());
    expect(a).toMatchObject({status: 'done', refined: REFINED, tool_calls: 6, original: inputs.explanation});
    const results = auditMessages(db, a.id).filter(m => m.role === 'tool');
    const diff = JSON.parse(results[0]!.content!);
    expect(diff).toMatchObject({
      before: {outcome: 'failed'},
      after: {outcome: 'failed'},
      delta: {function: 'parse_duration'},
    });
    expect(JSON.parse(results[1]!.content!).callers.map((c: {file: string}) => c.file)).toContain(
      'tests/test_parse.py',
    );
    expect(JSON.parse(results[2]!.content!)).toMatchObject({error: expect.stringContaining('outside')});
    expect(JSON.parse(results[3]!.content!)).toMatchObject({outcome: 'timeout'});
    expect(JSON.parse(results[4]!.content!)).toMatchObject({error: expect.stringContaining('not JSON')});
    expect(JSON.parse(results[5]!.content!)).toMatchObject({error: expect.stringContaining('unknown tool "teleport"')});
    // the model saw the tools and the prompt held the issue, the patch and the explanation
    const first = server.calls[base]!.body as {tools: unknown[]; messages: {content: string}[]};
    expect(first.tools).toHaveLength(7);
    expect(first.messages[1]!.content).toContain(inputs.explanation);
    expect(findExplanation(db, 'demo__durations-1', 'demo-agent-wrong', 'audited')).toMatchObject({text: REFINED});
    // scored like any explanation, and the report compares it with the original
    insertDurationsQuestion(db, {
      id: 'q-effect',
      correct: 'still fails after the patch',
      wrong: 'passes after the patch',
    });
    // the explanation it was given is kept as the agent's original, to be scored and compared
    expect(findExplanation(db, 'demo__durations-1', 'demo-agent-wrong', 'original')).toMatchObject({
      text: inputs.explanation,
    });
    await scoreExplanations(db, {model: lexicalModel(), samples: 1, concurrency: 1, kinds: ['original', 'audited']});
    const report = buildReport(db, {model: 'lexical'});
    expect(report.agents.find(x => x.agent === 'demo-agent-wrong' && x.explanations === 'audited')).toBeDefined();
  }, 120_000);

  it('another explanation given under an agent whose original is stored is refused, naming the stored one; the same one is audited again', async () => {
    await expect(runAudit(db, {...inputs, explanation: 'Something else entirely.'}, options())).rejects.toThrow(
      AuditInputError,
    );
    await expect(runAudit(db, {...inputs, explanation: 'Something else entirely.'}, options())).rejects.toThrow(
      /another original explanation of demo__durations-1 by demo-agent-wrong is stored \(explanation #\d+\)/,
    );
    script = () => ({answer: REFINED});
    expect(await runAudit(db, inputs, options())).toMatchObject({status: 'done'});
  }, 60_000);

  it('a model that never stops is ended by its budget, incomplete and never saved as done; the same call thrice gets an error', async () => {
    const base = server.calls.length;
    script = () => ({toolCalls: [{name: 'read_file', arguments: '{"path": "durations/parse.py"}'}]});
    const a = await runAudit(
      db,
      {...inputs, agent: 'budget-test'},
      options({budgets: {...DEFAULT_BUDGETS, maxToolCalls: 4}}),
    );
    expect(a).toMatchObject({
      status: 'incomplete',
      refined: null,
      tool_calls: 4,
      reason: expect.stringContaining('budget of 4 tool calls'),
    });
    const results = auditMessages(db, a.id)
      .filter(m => m.role === 'tool')
      .map(m => JSON.parse(m.content!));
    expect(results[2]).toMatchObject({error: expect.stringContaining('made 3 times')});
    expect(server.calls.length - base).toBe(4);
    expect(findExplanation(db, 'demo__durations-1', 'budget-test', 'audited')).toBeNull();
  }, 60_000);

  it('a 429 with Retry-After and a 500 are retried, as score retries them', async () => {
    const base = server.calls.length;
    script = call =>
      call.index - base === 0
        ? {status: 429, headers: {'retry-after': '0'}}
        : call.index - base === 1
          ? {status: 500}
          : {answer: REFINED};
    const a = await runAudit(
      db,
      {...inputs, agent: 'retry-test'},
      options({model: {name: 'auditor', baseURL: server.url, apiKey: 'k', maxRetries: 3}}),
    );
    expect(a).toMatchObject({status: 'done', refined: REFINED});
    expect(server.calls.length - base).toBe(3);
  }, 60_000);

  it('an interrupted audit keeps its transcript and resumes to the end', async () => {
    const base = server.calls.length;
    const stop = new AbortController();
    script = call =>
      call.index - base === 0
        ? {toolCalls: [{name: 'read_file', arguments: '{"path": "durations/parse.py"}'}]}
        : {answer: REFINED};
    const first = await runAudit(
      db,
      {...inputs, agent: 'resume-test'},
      options({signal: stop.signal, onEvent: e => e.kind === 'tool' && stop.abort()}),
    );
    expect(first).toMatchObject({status: 'incomplete', reason: expect.stringContaining('interrupted')});
    expect(auditMessages(db, first.id).filter(m => m.role === 'tool')).toHaveLength(1);
    const resumed = await continueAudit(db, first.id, options());
    expect(resumed).toMatchObject({status: 'done', refined: REFINED, tool_calls: 1});
    // the resumed call carried the whole transcript
    const last = server.calls.at(-1)!.body as {messages: {role: string}[]};
    expect(last.messages.map(m => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
  }, 60_000);
});

describe('tool calls that go wrong do not end the audit', () => {
  it('a write on a folder, under a file, a huge read and a revert after a folder became a link: each answered, the audit done, no host folder in the transcript', async () => {
    const db = freshDb().db;
    const steps: Reply[] = [
      {toolCalls: [{name: 'write_file', arguments: '{"path": "durations", "content": "x"}'}]},
      {toolCalls: [{name: 'write_file', arguments: '{"path": "durations/parse.py/sub.py", "content": "x"}'}]},
      {
        toolCalls: [
          {name: 'bash', arguments: '{"command": "truncate -s 1500M big.txt && rm -rf tests && ln -s /usr tests"}'},
        ],
      },
      {toolCalls: [{name: 'read_file', arguments: '{"path": "big.txt"}'}]},
      {toolCalls: [{name: 'revert_patch', arguments: '{}'}]},
      {toolCalls: [{name: 'read_file', arguments: '{"path": "tests/test_parse.py"}'}]},
      {answer: REFINED},
    ];
    const base = server.calls.length;
    script = call => steps[call.index - base] ?? {answer: REFINED};
    const a = await runAudit(db, {...inputs, agent: 'bad-calls'}, options());
    expect(a).toMatchObject({status: 'done', refined: REFINED, tool_calls: 6});
    const raw = auditMessages(db, a.id)
      .filter(m => m.role === 'tool')
      .map(m => m.content!);
    // a long result is cut to the transcript's cap (so no longer JSON): the read's first part
    expect(raw[3]).toMatch(/^\{"content":"(\\u0000)+/);
    const results = raw.map((c, i) => (i === 3 ? null : JSON.parse(c)));
    expect(results[0]).toEqual({error: 'durations is a folder'});
    expect(results[1]).toMatchObject({error: expect.stringContaining('durations/parse.py is not a folder')});
    expect(results[4]).toEqual({reverted: true});
    expect(results[5]).toMatchObject({content: expect.stringContaining('def test_compound_duration')});
    expect(
      auditMessages(db, a.id)
        .map(m => m.content ?? '')
        .join('\n'),
    ).not.toMatch(/deltalens-(audit|ws)-/);
  }, 120_000);

  it('--max-seconds stops a tool call that is still running: incomplete with the budget named, within moments', async () => {
    const db = freshDb().db;
    const base = server.calls.length;
    script = call =>
      call.index - base === 0 ? {toolCalls: [{name: 'bash', arguments: '{"command": "sleep 60"}'}]} : {answer: REFINED};
    const started = Date.now();
    const a = await runAudit(
      db,
      {...inputs, agent: 'slow-tool'},
      options({toolTimeoutS: 120, budgets: {...DEFAULT_BUDGETS, maxSeconds: 3}}),
    );
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(a).toMatchObject({status: 'incomplete', reason: expect.stringContaining('budget of 3 s')});
    expect(JSON.parse(auditMessages(db, a.id).filter(m => m.role === 'tool')[0]!.content!)).toMatchObject({
      error: expect.stringContaining('time budget'),
    });
  }, 60_000);

  it('resumed after a kill -9 during a tool call, the unanswered call is answered "interrupted" (the server sees a result for every call)', async () => {
    const {spawn} = await import('node:child_process');
    const {tempDir} = await import('../helpers/files.js');
    const {ROOT} = await import('../helpers/paths.js');
    const {openDb} = await import('../../source/store/db.js');
    const {writeFileSync} = await import('node:fs');
    const dir = tempDir();
    writeFileSync(join(dir, 'patch.diff'), inputs.patch);
    writeFileSync(join(dir, 'explanation.txt'), inputs.explanation);
    const base = server.calls.length;
    script = call =>
      call.index - base === 0
        ? {
            toolCalls: [
              {name: 'read_file', arguments: '{"path": "durations/parse.py"}'},
              {name: 'bash', arguments: '{"command": "sleep 100"}'},
            ],
          }
        : {answer: REFINED};
    const cli = (args: string[]) =>
      spawn(process.execPath, [join(ROOT, 'bin', 'deltalens.js'), ...args], {
        cwd: dir,
        env: {...process.env, OPENAI_API_KEY: 'k', NO_COLOR: '1'},
      });
    const db = join(dir, 'a.db');
    const first = cli([
      'audit',
      '--buggy-dir',
      join(P, 'repo'),
      '--patch',
      'patch.diff',
      '--explanation',
      'explanation.txt',
      '--model',
      'auditor',
      '--base-url',
      server.url,
      '--no-sandbox',
      '--db',
      db,
    ]);
    // killed while the second call (sleep 100) runs: the first call's answer is stored, the second's is not
    const toolRows = () => {
      try {
        const store = openDb(db, {mode: 'read'});
        try {
          return auditMessages(store, 1).filter(m => m.role === 'tool').length;
        } finally {
          store.close();
        }
      } catch {
        return 0; // not made yet
      }
    };
    const deadline = Date.now() + 30_000;
    while (toolRows() < 1 && Date.now() < deadline) await new Promise(r => setTimeout(r, 100));
    await new Promise(r => setTimeout(r, 500));
    first.kill('SIGKILL');
    await new Promise(r => first.on('close', r));
    expect(toolRows()).toBe(1);
    const resumed = cli([
      'audit',
      '--resume',
      '1',
      '--model',
      'auditor',
      '--base-url',
      server.url,
      '--no-sandbox',
      '--db',
      db,
      '--json',
    ]);
    let out = '';
    resumed.stdout.on('data', d => (out += d));
    const code = await new Promise(r => resumed.on('close', r));
    expect(code).toBe(0);
    expect(JSON.parse(out).audit).toMatchObject({status: 'done', refined: REFINED});
    const sent = server.calls.at(-1)!.body as {messages: {role: string; tool_call_id?: string; content: string}[]};
    expect(sent.messages.map(m => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
    expect(sent.messages.slice(3).map(m => m.tool_call_id)).toEqual([`call-${base}-0`, `call-${base}-1`]);
    expect(JSON.parse(sent.messages[4]!.content)).toMatchObject({error: expect.stringContaining('interrupted')});
    // and the stored transcript says so too
    expect(toolRows()).toBe(2);
  }, 90_000);
});

describe('deltalens audit from the command line', () => {
  it('audits a patch that is not in the store, prints the JSON the issue names, and lists it; usage errors are one line', async () => {
    const {spawn} = await import('node:child_process');
    const {mkdtempSync, writeFileSync} = await import('node:fs');
    const {tmpdir} = await import('node:os');
    const {ROOT} = await import('../helpers/paths.js');
    const dir = mkdtempSync(join(tmpdir(), 'deltalens-test-audit-'));
    writeFileSync(join(dir, 'patch.diff'), inputs.patch);
    writeFileSync(join(dir, 'explanation.txt'), inputs.explanation);
    const base = server.calls.length;
    script = call =>
      call.index - base === 0
        ? {toolCalls: [{name: 'diff_execution', arguments: JSON.stringify({test_code: TEST})}]}
        : {answer: REFINED};
    // spawned (not spawnSync): the scripted server answers from this process
    const run = (args: string[]) =>
      new Promise<{code: number | null; stdout: string; stderr: string}>(done => {
        const c = spawn(process.execPath, [join(ROOT, 'bin', 'deltalens.js'), ...args], {
          cwd: dir,
          env: {...process.env, OPENAI_API_KEY: 'k', NO_COLOR: '1'},
        });
        let stdout = '';
        let stderr = '';
        c.stdout.on('data', d => (stdout += d));
        c.stderr.on('data', d => (stderr += d));
        c.on('close', code => done({code, stdout, stderr}));
      });
    const r = await run([
      'audit',
      '--buggy-dir',
      join(P, 'repo'),
      '--patch',
      'patch.diff',
      '--explanation',
      'explanation.txt',
      '--model',
      'auditor',
      '--base-url',
      server.url,
      '--instance',
      'demo__durations-1',
      '--agent',
      'cli-agent',
      '--json',
      '--db',
      'a.db',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout).audit;
    expect(j).toMatchObject({
      status: 'done',
      original: inputs.explanation,
      refined: REFINED,
      tokens: {in: 110, out: 21},
      cost: null,
      requirements: null,
    });
    expect(j.tool_calls[0]).toMatchObject({
      tool: 'diff_execution',
      arguments: {test_code: TEST},
      result: {
        before: {exit_code: 1, outcome: 'failed'},
        after: {exit_code: 1, outcome: 'failed'},
        delta: {function: 'parse_duration'},
      },
    });
    const list = JSON.parse((await run(['audit', 'list', '--json', '--db', 'a.db'])).stdout);
    expect(list.map((a: {status: string}) => a.status)).toEqual(['done']);
    for (const [args, message] of [
      [['audit', '--db', 'a.db'], 'needs --model'],
      [['audit', '--model', 'm', '--db', 'a.db'], 'needs --buggy-dir'],
      [
        [
          'audit',
          '--model',
          'm',
          '--max-cost',
          '1',
          '--buggy-dir',
          '.',
          '--patch',
          'patch.diff',
          '--explanation',
          'explanation.txt',
          '--db',
          'a.db',
        ],
        'needs --price-in',
      ],
      [['audit', 'show', '99', '--db', 'a.db'], 'no audit 99'],
    ] as [string[], string][]) {
      const e = await run(args);
      expect(e.code, args.join(' ')).not.toBe(0);
      expect(e.stderr).toContain(message);
      expect(e.stderr.trim().split('\n')).toHaveLength(1);
    }
    (await import('node:fs')).rmSync(dir, {recursive: true, force: true});
  }, 120_000);
});

describe('deltalens audit RUN --repo CLONE', () => {
  it("audits a stored run on its instance's record: the buggy tree is the base commit with the test patch, made once", async () => {
    const {spawn, execFileSync} = await import('node:child_process');
    const {cpSync, existsSync, mkdtempSync, writeFileSync} = await import('node:fs');
    const {tmpdir} = await import('node:os');
    const {ROOT, SAMPLES} = await import('../helpers/paths.js');
    const dir = mkdtempSync(join(tmpdir(), 'deltalens-test-audit-repo-'));
    const clone = join(dir, 'clone');
    cpSync(join(P, 'repo'), clone, {recursive: true});
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: clone,
        encoding: 'utf8',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@t',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@t',
        },
      }).trim();
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'base');
    const record = {
      repo: 'demo/durations',
      instance_id: 'demo__durations-1',
      base_commit: git('rev-parse', 'HEAD'),
      patch: readFileSync(join(P, 'patches', 'gold.diff'), 'utf8'),
      test_patch: '',
      problem_statement: inputs.issue,
      FAIL_TO_PASS: JSON.stringify(['tests/test_parse.py::test_compound_duration']),
      PASS_TO_PASS: '[]',
    };
    writeFileSync(join(dir, 'rows.json'), JSON.stringify([record]));
    const cache = join(dir, 'cache');
    const run = (args: string[]) =>
      new Promise<{code: number | null; stdout: string; stderr: string}>(done => {
        const c = spawn(process.execPath, [join(ROOT, 'bin', 'deltalens.js'), ...args], {
          cwd: dir,
          env: {...process.env, OPENAI_API_KEY: 'k', NO_COLOR: '1', XDG_CACHE_HOME: cache},
        });
        let stdout = '';
        let stderr = '';
        c.stdout.on('data', d => (stdout += d));
        c.stderr.on('data', d => (stderr += d));
        c.on('close', code => done({code, stdout, stderr}));
      });
    expect((await run(['instances', 'import', 'rows.json', '--db', 'r.db'])).code).toBe(0);
    expect(
      (await run(['import', join(SAMPLES, 'demo-runs', 'demo-misfix', 'demo__durations-1.traj.json'), '--db', 'r.db']))
        .code,
    ).toBe(0);
    const base = server.calls.length;
    script = call =>
      call.index - base === 0
        ? {toolCalls: [{name: 'diff_execution', arguments: JSON.stringify({test_code: TEST})}]}
        : {answer: REFINED};
    const r = await run([
      'audit',
      '1',
      '--repo',
      clone,
      '--model',
      'auditor',
      '--base-url',
      server.url,
      '--json',
      '--db',
      'r.db',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout).audit;
    expect(j.status).toBe('done');
    expect(j.tool_calls[0].result.before).toMatchObject({exit_code: 1, outcome: 'failed'});
    expect(existsSync(join(cache, 'deltalens', 'instances'))).toBe(true);
    (await import('node:fs')).rmSync(dir, {recursive: true, force: true});
  }, 120_000);
});

describe("DeskCheck's requirement audit before the audit", () => {
  it('lists the requirements, checks each with a test run before and after the patch, stores the table and gives it to the model', async () => {
    const db = freshDb().db;
    const base = server.calls.length;
    const replies: Reply[] = [
      {
        answer:
          '```json\n["parse_duration sums every unit of a compound duration", "the output format is pleasant"]\n```',
      },
      {answer: `Here is a test:\n\`\`\`python\n${TEST}\`\`\``},
      {answer: 'NOT CHECKABLE: "pleasant" is not something a test can decide.'},
      {answer: REFINED},
    ];
    script = call => replies[call.index - base] ?? {answer: REFINED};
    const a = await runAudit(db, {...inputs, agent: 'requirements-test', requirements: true}, options());
    expect(a.status).toBe('done');
    expect(a.requirements).toEqual([
      {
        requirement: 'parse_duration sums every unit of a compound duration',
        verdict: 'violated',
        test: TEST,
        detail: expect.stringContaining('fails after the patch'),
      },
      {
        requirement: 'the output format is pleasant',
        verdict: 'not checkable',
        test: null,
        detail: expect.stringContaining('NOT CHECKABLE'),
      },
    ]);
    expect(a.tool_calls).toBe(1);
    // the audit's model saw the table
    const last = server.calls.at(-1)!.body as {messages: {role: string; content: string}[]};
    expect(last.messages.at(-1)!.content).toContain('- violated: parse_duration sums every unit');
  }, 60_000);
});
