/**
 * The explanation audit (`deltalens audit`) timed as a user runs it, against a local
 * OpenAI-compatible server scripted like a model that tests before it answers: diff_execution of
 * the bug's test, inspect_call_graph of the function where behaviour first differs, then the
 * refined explanation. On each demo project (the wrong agent patch) and on the real-library case
 * (the sympy test of the heavy tracing bench, the fix in Pow.__new__ as the patch). Reported: the
 * wall time of the whole command, the time each tool took (between the model's calls), and the
 * prompt characters a real model would have read (its cost is that in tokens).
 */
import {spawn} from 'node:child_process';
import {readFileSync, rmSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {testSource} from '../../source/services/offline-auditor.js';
import {startOpenAiServer, type Call, type Reply} from '../helpers/openai-server.js';
import {ROOT} from '../helpers/paths.js';
import {TEST, trees} from './heavy.js';

const BIN = join(ROOT, 'bin', 'deltalens.js');

/** The model's three turns, decided from the conversation it is sent. */
function script(testCode: string) {
  return (call: Call): Reply => {
    const messages = (call.body as {messages: {role: string; content: string | null}[]}).messages;
    const parsed = (text: string | null) => {
      try {
        return JSON.parse(text ?? '{}') as {delta?: {function?: string} | null};
      } catch {
        return {}; // a result cut at its cap
      }
    };
    const results = messages.filter(m => m.role === 'tool').map(m => parsed(m.content));
    if (!results.length)
      return {toolCalls: [{name: 'diff_execution', arguments: JSON.stringify({test_code: testCode})}]};
    if (results.length === 1 && results[0]!.delta?.function)
      return {
        toolCalls: [{name: 'inspect_call_graph', arguments: JSON.stringify({function: results[0]!.delta.function})}],
      };
    return {
      answer: `Revised: the test's outcome after the patch and where behaviour first differs are in the tool results (${results.length} calls).`,
    };
  };
}

async function audit(
  args: string[],
  testCode: string,
  db: string,
): Promise<{
  s: number;
  calls: Call[];
  out: {audit: {status: string; reason: string | null; tool_calls: {tool: string; result: unknown}[]}} | null;
  stderr: string;
}> {
  const server = await startOpenAiServer(script(testCode));
  rmSync(db, {force: true});
  const t = performance.now();
  const child = spawn(
    process.execPath,
    [BIN, 'audit', ...args, '--model', 'bench-scripted', '--base-url', server.url, '--json', '--db', db],
    {cwd: ROOT, env: {...process.env, OPENAI_API_KEY: 'bench'}, stdio: ['ignore', 'pipe', 'pipe']},
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', d => (stdout += String(d)));
  child.stderr.on('data', d => (stderr += String(d)));
  await new Promise(r => child.on('close', r));
  const s = (performance.now() - t) / 1000;
  await server.close();
  let out = null;
  try {
    out = JSON.parse(stdout);
  } catch {
    /* reported below */
  }
  return {s, calls: server.calls, out, stderr};
}

function report(name: string, r: Awaited<ReturnType<typeof audit>>, log: (line: string) => void): void {
  if (!r.out) {
    log(`${name}: failed — ${r.stderr.trim().split('\n').slice(-2).join(' ')}`);
    return;
  }
  const a = r.out.audit;
  // a tool's time: from the model call that asked for it to the next one
  const tools = a.tool_calls.map((c, i) => `${c.tool} ${((r.calls[i + 1]!.at - r.calls[i]!.at) / 1000).toFixed(1)} s`);
  const prompt = r.calls.reduce((n, c) => n + JSON.stringify((c.body as {messages: unknown}).messages).length, 0);
  const sizes = r.calls.slice(1).map(c => {
    const m = (c.body as {messages: {role: string; content: string | null}[]}).messages
      .filter(x => x.role === 'tool')
      .at(-1);
    return m?.content?.length ?? 0;
  });
  log(
    `${name}: ${r.s.toFixed(1)} s, ${a.status}${a.reason ? ` (${a.reason})` : ''}; ${tools.join(', ')}; results ${sizes.map(n => `${(n / 1000).toFixed(1)} k`).join(', ')} characters; ${r.calls.length} model calls reading ${(prompt / 1000).toFixed(1)} k prompt characters (≈ ${Math.round(prompt / 4 / 1000)} k tokens at 4 characters a token)`,
  );
}

export async function benchAudit(out: string, log: (line: string) => void): Promise<void> {
  log(
    '\n## Explanation audit (deltalens audit against a scripted local model: diff_execution, inspect_call_graph, answer)',
  );
  const projects = join(ROOT, 'sample-data', 'projects');
  for (const name of ['durations', 'graphs', 'ledger']) {
    const dir = join(projects, name);
    const meta = JSON.parse(readFileSync(join(dir, 'project.json'), 'utf8')) as {instance: string; test: string};
    const [file, fn] = meta.test.split('::') as [string, string];
    const code = testSource(readFileSync(join(dir, 'repo', file), 'utf8'), fn)!;
    const explanation = join(out, `audit-${name}.txt`);
    writeFileSync(explanation, 'The patch fixes the bug: the test passes now.\n');
    report(
      `${name} (wrong agent patch)`,
      await audit(
        [
          '--buggy-dir',
          join(dir, 'repo'),
          '--patch',
          join(dir, 'patches', 'agent-wrong.diff'),
          '--explanation',
          explanation,
          '--instance',
          meta.instance,
        ],
        code,
        join(out, `audit-${name}.db`),
      ),
      log,
    );
  }
  const t = trees(out);
  if (typeof t === 'string') {
    log(`sympy case: skipped (${t})`);
    return;
  }
  // the fix as the agent's patch: the one function the heavy case's two trees differ in
  const rel = 'sympy/core/power.py';
  const diff = spawnDiff(join(t.buggy, rel), join(t.fixed, rel), rel);
  const patch = join(out, 'audit-sympy.diff');
  writeFileSync(patch, diff);
  const explanation = join(out, 'audit-sympy.txt');
  writeFileSync(
    explanation,
    'Pow.__new__ now returns nan for a power with a complex-infinite exponent, so 2**zoo is nan.\n',
  );
  const code = readFileSync(join(t.buggy, TEST.split('::')[0]!), 'utf8');
  report(
    'sympy case (a test through simplify and integrate, fix in Pow.__new__)',
    await audit(
      ['--buggy-dir', t.buggy, '--patch', patch, '--explanation', explanation, '--instance', 'bench__sympy-pow-zoo'],
      code,
      join(out, 'audit-sympy.db'),
    ),
    log,
  );
}

/** A unified diff of one file between the two trees, with a/ and b/ paths. */
function spawnDiff(a: string, b: string, rel: string): string {
  const before = readFileSync(a, 'utf8').split('\n');
  const after = readFileSync(b, 'utf8').split('\n');
  let start = 0;
  while (start < before.length && before[start] === after[start]) start++;
  let endA = before.length;
  let endB = after.length;
  while (endA > start && endB > start && before[endA - 1] === after[endB - 1]) [endA, endB] = [endA - 1, endB - 1];
  const from = Math.max(0, start - 3);
  const toA = Math.min(before.length, endA + 3);
  const toB = Math.min(after.length, endB + 3);
  const lines = [
    ...before.slice(from, start).map(l => ` ${l}`),
    ...before.slice(start, endA).map(l => `-${l}`),
    ...after.slice(start, endB).map(l => `+${l}`),
    ...before.slice(endA, toA).map(l => ` ${l}`),
  ];
  return `--- a/${rel}\n+++ b/${rel}\n@@ -${from + 1},${toA - from} +${from + 1},${toB - from} @@\n${lines.join('\n')}\n`;
}
