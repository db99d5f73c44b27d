/**
 * The explanation audit agent (ExplainBench §6): a model, given the issue, the agent's patch and
 * its explanation, tests the explanation by running code through the audit tools (every run in
 * the sandbox, on throw-away trees) and answers with a refined explanation — the original with
 * what was validated and how, or a revision naming each contradicted claim and its evidence.
 *
 * A tool-calling loop over any OpenAI-compatible endpoint. Bad model output is expected:
 * arguments that are not JSON, an unknown tool, the same call over and over, an empty final
 * answer — each gets an error the model can read, and the budgets (tool calls, tokens, wall time,
 * an optional cost) end a loop that does not stop. Every message is stored as it happens; an
 * audit is marked done only with a refined explanation, which is then stored as the agent's
 * `audited` explanation for that instance (so `score` and `report` compare it with the original).
 */
import OpenAI from 'openai';
import {pythonTestCode} from '../core/text/python-code.js';
import type {Db} from '../store/db.js';
import {writeTx} from '../store/db.js';
import {addAuditMessage, auditMessages, createAudit, getAudit, updateAudit, type AuditRow} from '../store/audits.js';
import {ensureExplanation, findExplanation, replaceExplanationText} from '../store/questions.js';
import {problemStatement} from '../store/instances.js';
import {getTrajectory, listTrajectories} from '../store/trajectories.js';
import {demoCheckouts} from './demo-projects.js';
import {AuditTools} from './audit-tools.js';
import {apiKeyOf} from './qa-models.js';
import type {SandboxPolicy} from './sandbox.js';

export interface AuditBudgets {
  maxToolCalls: number;
  maxTokens: number;
  maxSeconds: number;
  /** dollars; needs prices */
  maxCost: number | null;
  /** dollars per million tokens, for the cost */
  priceIn: number | null;
  priceOut: number | null;
}

export const DEFAULT_BUDGETS: AuditBudgets = {
  maxToolCalls: 20,
  maxTokens: 200_000,
  maxSeconds: 900,
  maxCost: null,
  priceIn: null,
  priceOut: null,
};

export interface AuditModel {
  name: string;
  baseURL?: string;
  apiKey: string;
  maxRetries?: number;
  timeoutMs?: number;
  /** answers in process instead of an endpoint (the demo's scripted offline auditor) */
  complete?: (messages: OpenAI.Chat.ChatCompletionMessageParam[]) => Promise<OpenAI.Chat.ChatCompletion>;
}

export interface AuditInputs {
  instance: string;
  agent: string;
  trajectory: number | null;
  buggyDir: string;
  patch: string;
  explanation: string;
  issue: string;
  /** DeskCheck's requirement audit first (§3.1.4–3.1.5) */
  requirements?: boolean;
}

interface RequirementCheck {
  requirement: string;
  verdict: 'satisfied' | 'violated' | 'not checkable';
  /** the test the model wrote for it, when it wrote one */
  test: string | null;
  detail: string;
}

/** At most this many requirements are checked (a longer list is cut, and said so). */
const MAX_REQUIREMENTS = 8;

export interface AuditRunOptions {
  model: AuditModel;
  budgets: AuditBudgets;
  python: string;
  sandbox: SandboxPolicy;
  passEnv?: string[];
  /** per test run and bash command, seconds */
  toolTimeoutS: number;
  /** characters of a tool result kept (in the transcript and for the model) */
  maxResultChars: number;
  signal?: AbortSignal;
  onEvent?: (e: {kind: 'model' | 'tool' | 'error'; text: string}) => void;
}

/** The tools as the chat API describes them. */
const AUDIT_TOOLS: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'diff_execution',
      description:
        'Write a pytest test (Python source holding one def test_… function), run it before and after the patch, and get both outcomes and the delta point: the first place the two executions differ (function, line, values).',
      parameters: {type: 'object', properties: {test_code: {type: 'string'}}, required: ['test_code']},
    },
  },
  {
    type: 'function',
    function: {
      name: 'inspect_call_graph',
      description:
        'The call chains that reach a function (name or Class.method) in the tests diff_execution ran, traced with it as the focus, innermost first; and the lines of the tree that call it by name.',
      parameters: {type: 'object', properties: {function: {type: 'string'}}, required: ['function']},
    },
  },
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file of the work tree (path relative to it).',
      parameters: {type: 'object', properties: {path: {type: 'string'}}, required: ['path']},
    },
  },
  {
    type: 'function',
    function: {
      name: 'write_file',
      description: 'Write a file of the work tree (only inside it).',
      parameters: {
        type: 'object',
        properties: {path: {type: 'string'}, content: {type: 'string'}},
        required: ['path', 'content'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'apply_patch',
      description: "Apply the agent's patch to the work tree.",
      parameters: {type: 'object', properties: {}},
    },
  },
  {
    type: 'function',
    function: {
      name: 'revert_patch',
      description: 'Put the buggy files back in the work tree.',
      parameters: {type: 'object', properties: {}},
    },
  },
  {
    type: 'function',
    function: {
      name: 'bash',
      description: 'Run a bash command in the work tree (time and output limited, no network).',
      parameters: {type: 'object', properties: {command: {type: 'string'}}, required: ['command']},
    },
  },
];

function auditPrompt(i: AuditInputs): {system: string; user: string} {
  return {
    system:
      "You audit a coding agent's explanation of its patch. Test what the explanation claims by running code with the tools (diff_execution runs a test before and after the patch and shows where behaviour first differs). When you are done, answer with the refined explanation and nothing else: the original explanation with a confirmation of what you validated and how, or a revision that names each claim your runs contradicted and the evidence.",
    user: `Issue:\n${i.issue}\n\nThe agent's patch:\n${i.patch}\n\nThe agent's explanation:\n${i.explanation}`,
  };
}

type Message = OpenAI.Chat.ChatCompletionMessageParam;

/** What a tool call that deltalens never finished (killed, power cut) is answered when the audit goes on. */
const INTERRUPTED_RESULT = JSON.stringify({
  error: 'interrupted before this call finished (deltalens was stopped): no result; call it again',
});

/**
 * The stored transcript as chat messages, to continue an audit. Every tool call of an assistant
 * message gets an answer right after it — OpenAI-compatible servers refuse a transcript without
 * one: a call deltalens did not finish (killed during it) is answered "interrupted". Those answers
 * are returned beside, to be stored.
 */
function toMessages(stored: ReturnType<typeof auditMessages>): {
  messages: Message[];
  unanswered: {id: string; name: string; arguments: string}[];
} {
  const messages: Message[] = [];
  const unanswered: {id: string; name: string; arguments: string}[] = [];
  let pending: {id: string; name: string; arguments: string}[] = [];
  const answerPending = () => {
    for (const c of pending) {
      messages.push({role: 'tool', tool_call_id: c.id, content: INTERRUPTED_RESULT});
      unanswered.push(c);
    }
    pending = [];
  };
  for (const m of stored) {
    if (m.role === 'tool') {
      const i = pending.findIndex(c => c.id === m.tool_call_id);
      if (i >= 0) pending.splice(i, 1);
      messages.push({role: 'tool', tool_call_id: m.tool_call_id ?? '', content: m.content ?? ''});
      continue;
    }
    answerPending();
    if (m.role === 'assistant') {
      messages.push({
        role: 'assistant',
        content: m.content,
        ...(m.tool_calls?.length
          ? {
              tool_calls: m.tool_calls.map(c => ({
                id: c.id,
                type: 'function' as const,
                function: {name: c.name, arguments: c.arguments},
              })),
            }
          : {}),
      });
      pending = [...(m.tool_calls ?? [])];
    } else messages.push({role: m.role, content: m.content ?? ''} as Message);
  }
  answerPending();
  return {messages, unanswered};
}

const costOf = (b: AuditBudgets, tokensIn: number, tokensOut: number) =>
  b.priceIn !== null && b.priceOut !== null ? (tokensIn * b.priceIn + tokensOut * b.priceOut) / 1e6 : null;

/** Starts an audit and runs it to its end (done, or incomplete with the reason). */
export async function runAudit(db: Db, inputs: AuditInputs, o: AuditRunOptions): Promise<AuditRow> {
  const id = writeTx(db, () => {
    // an explanation given as it is (not a stored run's) is kept as the agent's original, so the
    // audited one is scored and compared with it; another original stored under that name is not replaced
    if (inputs.trajectory === null) {
      const stored = findExplanation(db, inputs.instance, inputs.agent, 'original');
      if (stored?.text && stored.text.trim() !== inputs.explanation.trim()) {
        throw new AuditInputError(
          `another original explanation of ${inputs.instance} by ${inputs.agent} is stored (explanation #${stored.id}): give this one another --agent name, or audit the stored one (--instance and --agent without --explanation)`,
        );
      }
      if (!stored?.text)
        ensureExplanation(db, {
          instance: inputs.instance,
          agent: inputs.agent,
          kind: 'original',
          text: inputs.explanation,
          source: 'deltalens audit (the explanation it was given)',
        });
    }
    const a = createAudit(db, {
      instance: inputs.instance,
      agent: inputs.agent,
      trajectory: inputs.trajectory,
      model: o.model.name,
      inputs: {...inputs, budgets: o.budgets},
      original: inputs.explanation,
    });
    const p = auditPrompt(inputs);
    addAuditMessage(db, a, {
      role: 'system',
      content: p.system,
      tool_calls: null,
      tool_call_id: null,
      tool: null,
      arguments: null,
      tokens: null,
    });
    addAuditMessage(db, a, {
      role: 'user',
      content: p.user,
      tool_calls: null,
      tool_call_id: null,
      tool: null,
      arguments: null,
      tokens: null,
    });
    return a;
  });
  return continueAudit(db, id, o);
}

/** Continues an audit from its stored transcript (after an interruption, or with new budgets). */
export async function continueAudit(db: Db, id: number, o: AuditRunOptions): Promise<AuditRow> {
  const audit = getAudit(db, id);
  if (!audit) throw new Error(`no audit ${id}`);
  if (audit.status === 'done') return audit;
  const inputs = audit.inputs as unknown as AuditInputs;
  const event = o.onEvent ?? (() => {});
  const finish = (status: 'done' | 'incomplete' | 'failed', reason: string | null, refined: string | null = null) => {
    writeTx(db, () => {
      updateAudit(db, id, {status, reason, refined, finished: true});
      if (status === 'done' && refined) {
        // the refined explanation joins the agent's explanations as "audited" for this instance
        const e = ensureExplanation(db, {
          instance: audit.instance,
          agent: audit.agent,
          kind: 'audited',
          text: refined,
          source: `deltalens audit #${id} (${audit.model})`,
        });
        replaceExplanationText(db, e, refined);
      }
    });
    return getAudit(db, id)!;
  };
  writeTx(db, () => updateAudit(db, id, {status: 'running', reason: null}));
  event({kind: 'model', text: `audit #${id} running with ${audit.model}`});
  const started = Date.now();
  // Ctrl+C, or the wall-time budget, stops what runs now — a test, a trace, a model call — not
  // only the next step
  const stop = new AbortController();
  let overTime = false;
  const onAbort = () => stop.abort();
  if (o.signal?.aborted) stop.abort();
  o.signal?.addEventListener('abort', onAbort);
  const deadline = setTimeout(
    () => {
      overTime = true;
      stop.abort();
    },
    Math.min(o.budgets.maxSeconds * 1000, 2 ** 31 - 1),
  );
  deadline.unref();
  const stopped = () =>
    overTime
      ? `the budget of ${o.budgets.maxSeconds} s is spent before a refined explanation`
      : 'interrupted (Ctrl+C): the transcript so far is kept; deltalens audit --resume continues it';
  let tools: AuditTools;
  try {
    tools = await AuditTools.open(db, {
      instance: audit.instance,
      buggyDir: inputs.buggyDir,
      patch: inputs.patch,
      python: o.python,
      sandbox: o.sandbox,
      passEnv: o.passEnv,
      timeoutS: o.toolTimeoutS,
      maxOutput: o.maxResultChars,
      signal: stop.signal,
    });
  } catch (error) {
    clearTimeout(deadline);
    o.signal?.removeEventListener('abort', onAbort);
    return finish('failed', `the audit's trees cannot be made: ${(error as Error).message}`);
  }
  const client = new OpenAI({
    apiKey: o.model.apiKey,
    baseURL: o.model.baseURL,
    maxRetries: o.model.maxRetries ?? 6,
    timeout: o.model.timeoutMs ?? 120_000,
  });
  const stored = auditMessages(db, id);
  const {messages, unanswered} = toMessages(stored);
  // a call the last run did not finish is answered in the stored transcript too
  for (const c of unanswered)
    writeTx(db, () =>
      addAuditMessage(db, id, {
        role: 'tool',
        content: INTERRUPTED_RESULT,
        tool_calls: null,
        tool_call_id: c.id,
        tool: c.name,
        arguments: c.arguments,
        tokens: null,
      }),
    );
  let toolCalls = audit.tool_calls;
  let tokensIn = audit.tokens_in;
  let tokensOut = audit.tokens_out;
  const seen = new Map<string, number>();
  for (const m of stored)
    for (const c of m.tool_calls ?? [])
      seen.set(`${c.name}\0${c.arguments}`, (seen.get(`${c.name}\0${c.arguments}`) ?? 0) + 1);
  let empty = 0;
  const store = (m: Parameters<typeof addAuditMessage>[2]) => writeTx(db, () => addAuditMessage(db, id, m));
  const counters = () =>
    writeTx(db, () =>
      updateAudit(db, id, {toolCalls, tokensIn, tokensOut, cost: costOf(o.budgets, tokensIn, tokensOut)}),
    );
  /** One answer of the model (with the tools offered, or without), its tokens counted. */
  const chat = async (conv: Message[], tools: boolean): Promise<OpenAI.Chat.ChatCompletion> => {
    const r = o.model.complete
      ? await o.model.complete(conv)
      : await client.chat.completions.create(
          {model: o.model.name, messages: conv, ...(tools ? {tools: AUDIT_TOOLS, tool_choice: 'auto' as const} : {})},
          {signal: stop.signal},
        );
    tokensIn += r.usage?.prompt_tokens ?? 0;
    tokensOut += r.usage?.completion_tokens ?? 0;
    return r;
  };
  /** One question to the model without tools (the requirement phase), stored in the transcript. */
  const ask = async (prompt: string): Promise<string | null> => {
    store({
      role: 'user',
      content: prompt,
      tool_calls: null,
      tool_call_id: null,
      tool: null,
      arguments: null,
      tokens: null,
    });
    const r = await chat(
      [
        {
          role: 'system',
          content: 'You help audit a patch against the issue it should fix. Answer exactly in the form asked.',
        },
        {role: 'user', content: prompt},
      ],
      false,
    );
    const text = r.choices[0]?.message?.content ?? null;
    store({
      role: 'assistant',
      content: text,
      tool_calls: null,
      tool_call_id: null,
      tool: null,
      arguments: null,
      tokens: r.usage?.total_tokens ?? null,
    });
    return text;
  };
  try {
    if (inputs.requirements && audit.requirements === null) {
      event({kind: 'model', text: "requirement audit: extracting the issue's requirements"});
      let checks: RequirementCheck[];
      try {
        checks = await requirementAudit(inputs, ask, async code => {
          toolCalls++;
          const r = await tools.diffExecution(code);
          store({
            role: 'tool',
            content: JSON.stringify(r).slice(0, o.maxResultChars),
            tool_calls: null,
            tool_call_id: `requirement-${toolCalls}`,
            tool: 'diff_execution',
            arguments: JSON.stringify({test_code: code}),
            tokens: null,
          });
          return r;
        });
      } catch (error) {
        if (stop.signal.aborted)
          return finish(
            'incomplete',
            overTime
              ? stopped()
              : 'interrupted (Ctrl+C) during the requirement audit; deltalens audit --resume continues it',
          );
        return finish('incomplete', `the requirement audit did not finish: ${(error as Error).message}`);
      }
      writeTx(db, () => updateAudit(db, id, {requirements: checks}));
      counters();
      const summary = `Requirement checks (each turned into a test run before and after the patch):\n${checks.map(c => `- ${c.verdict}: ${c.requirement}${c.detail ? ` (${c.detail})` : ''}`).join('\n')}`;
      store({
        role: 'user',
        content: summary,
        tool_calls: null,
        tool_call_id: null,
        tool: null,
        arguments: null,
        tokens: null,
      });
      messages.push({role: 'user', content: summary});
    }
    for (;;) {
      if (stop.signal.aborted) return finish('incomplete', stopped());
      const cost = costOf(o.budgets, tokensIn, tokensOut);
      const over =
        toolCalls >= o.budgets.maxToolCalls
          ? `the budget of ${o.budgets.maxToolCalls} tool calls is spent`
          : tokensIn + tokensOut >= o.budgets.maxTokens
            ? `the budget of ${o.budgets.maxTokens} tokens is spent`
            : (Date.now() - started) / 1000 >= o.budgets.maxSeconds
              ? `the budget of ${o.budgets.maxSeconds} s is spent`
              : o.budgets.maxCost !== null && cost !== null && cost >= o.budgets.maxCost
                ? `the cost limit of $${o.budgets.maxCost} is reached`
                : null;
      if (over) return finish('incomplete', `${over} before a refined explanation`);
      let res: OpenAI.Chat.ChatCompletion;
      try {
        res = await chat(messages, true);
      } catch (error) {
        if (stop.signal.aborted) return finish('incomplete', stopped());
        return finish('incomplete', `the model did not answer: ${(error as Error).message}`);
      }
      const msg = res.choices[0]?.message;
      const calls = (msg?.tool_calls ?? []).filter(
        (c): c is OpenAI.Chat.ChatCompletionMessageFunctionToolCall => c.type === 'function',
      );
      store({
        role: 'assistant',
        content: msg?.content ?? null,
        tool_calls: calls.length
          ? calls.map(c => ({id: c.id, name: c.function.name, arguments: c.function.arguments}))
          : null,
        tool_call_id: null,
        tool: null,
        arguments: null,
        tokens: res.usage?.total_tokens ?? null,
      });
      messages.push({role: 'assistant', content: msg?.content ?? null, ...(calls.length ? {tool_calls: calls} : {})});
      if (calls.length) {
        for (const c of calls) {
          toolCalls++;
          const name = c.function.name;
          event({kind: 'tool', text: `${name} ${c.function.arguments.slice(0, 120)}`});
          // every call gets an answer in the transcript (a resumed audit sends them all back); one
          // stopped by Ctrl+C says so instead of a half result
          const cut = () => ({
            error: `${overTime ? "the audit's time budget ran out" : 'interrupted (Ctrl+C)'} before this call finished: no result; call it again`,
          });
          let result = stop.signal.aborted ? cut() : await runTool(tools, name, c.function.arguments, seen);
          if (stop.signal.aborted) result = cut(); // stopped while it ran: what it returned is partial
          const content = JSON.stringify(result);
          const capped =
            content.length > o.maxResultChars
              ? `${content.slice(0, o.maxResultChars)}… (${content.length - o.maxResultChars} more characters cut)`
              : content;
          store({
            role: 'tool',
            content: capped,
            tool_calls: null,
            tool_call_id: c.id,
            tool: name,
            arguments: c.function.arguments,
            tokens: null,
          });
          messages.push({role: 'tool', tool_call_id: c.id, content: capped});
        }
        counters();
        continue;
      }
      counters();
      const text = (msg?.content ?? '').trim();
      if (!text) {
        empty++;
        if (empty >= 2) return finish('incomplete', 'the model gave an empty final answer twice');
        const nudge = 'Your answer was empty. Answer with the refined explanation (or call a tool).';
        store({
          role: 'user',
          content: nudge,
          tool_calls: null,
          tool_call_id: null,
          tool: null,
          arguments: null,
          tokens: null,
        });
        messages.push({role: 'user', content: nudge});
        continue;
      }
      event({kind: 'model', text: 'refined explanation received'});
      return finish('done', null, text);
    }
  } catch (error) {
    // the loop itself cannot go on (the store, a bug): the audit says so instead of staying "running"
    return finish('failed', `the audit stopped: ${tools.hidePaths((error as Error).message)}`);
  } finally {
    clearTimeout(deadline);
    o.signal?.removeEventListener('abort', onAbort);
    tools.close();
  }
}

/** One tool call: its result, or an error the model can read — never a throw. */
async function runTool(tools: AuditTools, name: string, rawArgs: string, seen: Map<string, number>): Promise<unknown> {
  try {
    return await callTool(tools, name, rawArgs, seen);
  } catch (error) {
    return {error: `${name} failed: ${tools.hidePaths((error as Error).message)}`};
  }
}

async function callTool(tools: AuditTools, name: string, rawArgs: string, seen: Map<string, number>): Promise<unknown> {
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(rawArgs || '{}');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return {error: 'the arguments must be a JSON object'};
    args = parsed as Record<string, unknown>;
  } catch (error) {
    return {error: `the arguments are not JSON: ${(error as Error).message}`};
  }
  const key = `${name}\0${rawArgs}`;
  const times = (seen.get(key) ?? 0) + 1;
  seen.set(key, times);
  if (times >= 3)
    return {
      error: `this exact call was made ${times} times; its result will not change — try something else or give the refined explanation`,
    };
  const str = (k: string) => (typeof args[k] === 'string' ? (args[k] as string) : '');
  switch (name) {
    case 'diff_execution':
      return tools.diffExecution(str('test_code'));
    case 'inspect_call_graph':
      return tools.callGraph(str('function'));
    case 'read_file':
      return tools.readFile(str('path'));
    case 'write_file':
      return tools.writeFile(str('path'), str('content'));
    case 'apply_patch':
      return tools.applyPatch();
    case 'revert_patch':
      return tools.revertPatch();
    case 'bash':
      return tools.bash(str('command'));
    default:
      return {
        error: `unknown tool "${name}" (tools: ${AUDIT_TOOLS.map(t => (t as {function: {name: string}}).function.name).join(', ')})`,
      };
  }
}

export class AuditInputError extends Error {}

/**
 * An audit's inputs from a stored run: its patch, its final explanation, the instance record's
 * issue text; the buggy tree is given, or the demo project's own checkout for a demo instance.
 */
export function inputsFromRun(db: Db, trajectory: number, buggyDir: string | null): AuditInputs {
  const t = getTrajectory(db, trajectory);
  if (!t) throw new AuditInputError(`no trajectory ${trajectory}`);
  if (!t.patch?.trim()) throw new AuditInputError(`run #${trajectory} submitted no patch: there is nothing to audit`);
  if (!t.explanation?.trim()) throw new AuditInputError(`run #${trajectory} has no explanation text to audit`);
  const dir = buggyDir ?? demoCheckouts().find(c => c.instance === t.instance)?.dir ?? null;
  if (!dir)
    throw new AuditInputError(`the audit of run #${trajectory} needs the buggy tree of ${t.instance}: --buggy-dir DIR`);
  return {
    instance: t.instance,
    agent: t.agent,
    trajectory: t.id,
    buggyDir: dir,
    patch: t.patch,
    explanation: t.explanation.trim(),
    issue: problemStatement(db, t.instance) ?? '(no issue text in the instance record)',
  };
}

/** The stored run of an agent on an instance that has a patch (the latest). */
export function runOf(db: Db, instance: string, agent: string): number | null {
  const runs = listTrajectories(db, {instance, agent}).filter(r => r.patchChars > 0);
  return runs.at(-1)?.id ?? null;
}

/** The model the explorer's `a` audits with: $DELTALENS_AUDIT_MODEL at $OPENAI_BASE_URL, key in $OPENAI_API_KEY. */
export function explorerAuditModel(env: NodeJS.ProcessEnv = process.env): AuditModel | {error: string} {
  const name = env.DELTALENS_AUDIT_MODEL;
  // one status line at 80 columns; the model's kind and endpoint are in the help and the readme
  if (!name) return {error: 'no audit yet · to start one: set $DELTALENS_AUDIT_MODEL, then a'};
  try {
    return {
      name,
      baseURL: env.OPENAI_BASE_URL,
      apiKey: apiKeyOf(`the audit model ${name}`, undefined, env, '', env.OPENAI_BASE_URL),
    };
  } catch (error) {
    return {error: (error as Error).message};
  }
}

/** An audit started from the explorer: a stored run, or the agent's run on the instance. */
export async function startExplorerAudit(
  db: Db,
  target: {trajectory: number} | {instance: string; agent: string},
  o: {noSandbox?: boolean; passEnv?: string[]; onEvent: (text: string) => void; signal?: AbortSignal},
): Promise<AuditRow> {
  const model = explorerAuditModel();
  if ('error' in model) throw new AuditInputError(model.error);
  const id = 'trajectory' in target ? target.trajectory : runOf(db, target.instance, target.agent);
  if (id === null)
    throw new AuditInputError(
      `no stored run of ${'agent' in target ? target.agent : ''} with a patch to audit (deltalens audit --buggy-dir … --patch … --explanation …)`,
    );
  return runAudit(db, inputsFromRun(db, id, null), {
    model,
    budgets: DEFAULT_BUDGETS,
    python: process.env.DELTALENS_PYTHON ?? 'python3',
    sandbox: o.noSandbox ? 'off' : 'require',
    passEnv: o.passEnv,
    toolTimeoutS: 120,
    maxResultChars: 8000,
    signal: o.signal,
    onEvent: e => o.onEvent(e.text),
  });
}

/**
 * DeskCheck's requirement audit (§3.1.4–3.1.5): the issue's requirements as a list, then for each
 * one input/expected-output pairs as a test, run before and after the patch — satisfied (passes
 * after), violated (fails after: the test is kept), or not checkable (the model wrote none, or the
 * test could not run).
 */
async function requirementAudit(
  i: AuditInputs,
  ask: (prompt: string) => Promise<string | null>,
  run: (test: string) => Promise<unknown>,
): Promise<RequirementCheck[]> {
  const listed = await ask(
    `List the requirements this issue states — what the fixed code must do — as a JSON array of short strings, nothing else.\n\nIssue:\n${i.issue}`,
  );
  let reqs: string[] = [];
  try {
    const json = /\[[\s\S]*\]/.exec(listed ?? '')?.[0] ?? 'null';
    const parsed: unknown = JSON.parse(json);
    if (Array.isArray(parsed))
      reqs = parsed.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map(x => x.trim());
  } catch {
    reqs = [];
  }
  if (!reqs.length)
    return [
      {
        requirement: '(none listed)',
        verdict: 'not checkable',
        test: null,
        detail: `the model gave no JSON list of requirements: ${(listed ?? '').slice(0, 200)}`,
      },
    ];
  const out: RequirementCheck[] = [];
  for (const requirement of reqs.slice(0, MAX_REQUIREMENTS)) {
    const answer = await ask(
      `Requirement: ${requirement}\n\nWrite one pytest test function (def test_…, with its imports) that checks this requirement with concrete input/expected-output pairs, in a python code block. If it cannot be checked by a test, answer NOT CHECKABLE and why.\n\nIssue:\n${i.issue}\n\nThe patch under audit:\n${i.patch}`,
    );
    const code = answer && !/NOT CHECKABLE/i.test(answer) ? pythonTestCode(answer) : null;
    if (!code) {
      out.push({
        requirement,
        verdict: 'not checkable',
        test: null,
        detail: (answer ?? 'no answer').replace(/\s+/g, ' ').slice(0, 200),
      });
      continue;
    }
    const r = (await run(code)) as {
      error?: string;
      after?: {outcome: string; stdout?: string};
      before?: {outcome: string};
    };
    if (r.error || !r.after)
      out.push({requirement, verdict: 'not checkable', test: code, detail: r.error ?? 'the test did not run'});
    else if (r.after.outcome === 'passed')
      out.push({
        requirement,
        verdict: 'satisfied',
        test: code,
        detail: `the test passes after the patch (${r.before?.outcome} before)`,
      });
    else if (r.after.outcome === 'failed')
      out.push({
        requirement,
        verdict: 'violated',
        test: code,
        detail: `the test fails after the patch: ${(r.after.stdout ?? '')
          .split('\n')
          .filter(l => /Error|assert/.test(l))
          .slice(0, 2)
          .join(' ')
          .slice(0, 200)}`,
      });
    else
      out.push({
        requirement,
        verdict: 'not checkable',
        test: code,
        detail: `the test did not run (${r.after.outcome})`,
      });
  }
  if (reqs.length > MAX_REQUIREMENTS)
    out.push({
      requirement: `(${reqs.length - MAX_REQUIREMENTS} more not checked)`,
      verdict: 'not checkable',
      test: null,
      detail: `at most ${MAX_REQUIREMENTS} requirements are checked`,
    });
  return out;
}
