/**
 * A scripted, offline auditing "model" for the demo: it runs the project's own bug-reproducing
 * test through diff_execution, looks up how the function where behaviour differs is reached
 * (inspect_call_graph), then answers from what the run showed — a confirmation when the
 * test passes after the patch, a revision naming the contradicted claim otherwise. Deterministic,
 * no network; its audits are marked as made by it (model "offline-scripted-auditor").
 */
import type OpenAI from 'openai';
import type {AuditModel} from './audit.js';

const OFFLINE_AUDITOR = 'offline-scripted-auditor';

/** The test function `name` of a test file with the file's imports, as one test's source. */
export function testSource(fileText: string, name: string): string | null {
  const lines = fileText.split('\n');
  const imports = lines.filter(l => /^(?:import|from)\s/.test(l));
  const start = lines.findIndex(l => new RegExp(`^def\\s+${name}\\s*\\(`).test(l));
  if (start < 0) return null;
  let end = start + 1;
  while (end < lines.length && (lines[end]!.trim() === '' || /^\s/.test(lines[end]!))) end++;
  return `${imports.join('\n')}\n\n\n${lines.slice(start, end).join('\n').trimEnd()}\n`;
}

const completion = (message: OpenAI.Chat.ChatCompletionMessage, n: number): OpenAI.Chat.ChatCompletion => ({
  id: `offline-${n}`,
  object: 'chat.completion',
  created: 0,
  model: OFFLINE_AUDITOR,
  choices: [{index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop', logprobs: null}],
  usage: {prompt_tokens: 0, completion_tokens: 0, total_tokens: 0},
});

type DiffResult = {
  before?: {outcome: string};
  after?: {outcome: string; stdout?: string};
  delta?: {function?: string; line?: number} | null;
  test?: string;
  error?: string;
};
type GraphResult = {chains?: {side: string; chain: string[]}[]; error?: string};

const call = (n: number, name: string, args: Record<string, string>) =>
  completion(
    {
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [{id: `offline-${n}`, type: 'function', function: {name, arguments: JSON.stringify(args)}}],
    },
    n,
  );

/** Runs the test (diff_execution), asks how the function where behaviour first differs is
 * reached (inspect_call_graph), then answers from both results. */
export function offlineAuditor(testCode: string, explanation: string): AuditModel {
  let n = 0;
  return {
    name: OFFLINE_AUDITOR,
    apiKey: 'offline',
    complete: async messages => {
      n++;
      const results = messages.filter(m => m.role === 'tool').map(m => JSON.parse(String(m.content)) as unknown);
      if (!results.length) return call(n, 'diff_execution', {test_code: testCode});
      const r = results[0] as DiffResult;
      if (results.length === 1 && r.delta?.function) return call(n, 'inspect_call_graph', {function: r.delta.function});
      const chain = (results[1] as GraphResult | undefined)?.chains?.[0]?.chain.map(f => f.split(' ')[0]);
      const reached =
        chain && chain.length > 1
          ? ` It is reached from ${chain.at(-1)} through ${chain.slice(0, -1).reverse().join(' → ')}.`
          : '';
      const where = r.delta?.function
        ? ` Behaviour first differs in ${r.delta.function}${r.delta.line ? ` at line ${r.delta.line}` : ''}.${reached}`
        : ' The traces show no difference in behaviour.';
      const text = r.error
        ? `${explanation}\n\nAudit: not validated — the test could not be run (${r.error}).`
        : r.after?.outcome === 'passed'
          ? `${explanation}\n\nAudit: validated — ${r.test} fails before the patch (${r.before?.outcome}) and passes after it.${where}`
          : `Revised: the explanation claims the patch resolves the issue, but ${r.test} still fails after the patch (${r.before?.outcome} before, ${r.after?.outcome} after).${where}\n\nOriginal explanation: ${explanation}`;
      return completion({role: 'assistant', content: text, refusal: null}, n);
    },
  };
}
