import {existsSync, readFileSync} from 'node:fs';
import {resolve} from 'node:path';
import {ctrlCStops} from './ctrl-c.js';
import {
  AuditInputError,
  continueAudit,
  DEFAULT_BUDGETS,
  inputsFromRun,
  runAudit,
  runOf,
  type AuditBudgets,
  type AuditRunOptions,
} from '../services/audit.js';
import {SandboxMissing} from '../services/sandbox.js';
import {auditMessages, getAudit, listAudits, type AuditRow} from '../store/audits.js';
import type {Db} from '../store/db.js';
import {COMMON_OPTIONS, SANDBOX_OPTIONS, EXIT, NotFound, parse, positiveInt, printJson, UsageError} from './args.js';
import {passEnvOption} from './pass-env.js';
import {openStore} from './db-path.js';
import {cell, say, warn} from './output.js';
import {toolResultBrief} from '../core/audit/brief.js';
import {apiKeyOf} from '../services/qa-models.js';
import {instanceBaseTree, InstanceTraceError} from '../services/instance-trace.js';
import {pythonRunner} from '../services/python.js';
import {WorkspaceError} from '../services/workspace.js';
import {getTrajectory} from '../store/trajectories.js';

export const AUDIT_HELP = `Usage: deltalens audit TRAJECTORY | --instance ID --agent NAME   [--buggy-dir DIR | --repo CLONE] --model NAME …
       deltalens audit --buggy-dir DIR --patch FILE --explanation FILE [--issue FILE]
                      [--instance ID] [--agent NAME] --model NAME [--base-url URL] [--api-key-env VAR]
                      [--max-tool-calls N] [--max-tokens N] [--max-seconds S]
                      [--max-cost DOLLARS --price-in D --price-out D] [--requirements] [--json] [--db FILE]
       deltalens audit --resume ID [same model options]
       deltalens audit list [--json]
       deltalens audit show ID [--json]

A stored run is audited with its own patch and final explanation and its instance record's issue
text; its buggy tree is --buggy-dir, or with --repo CLONE its instance's record (the base commit
with the test patch, exported from the clone once and kept in ~/.cache/deltalens/instances; the
demo projects' own checkouts are used for their tasks).

The explanation audit (ExplainBench §6): a chat model tests an agent's explanation of its patch by
running code, and answers with a refined explanation — the original with what it validated and
how, or a revision naming each contradicted claim and its evidence. Its tools, every run in the
sandbox on throw-away copies of the buggy tree: diff_execution (a test run before and after the
patch, with the delta point — where behaviour first differs — from the tracer), inspect_call_graph
(the call chains that reach a function, from those tests traced with it as the tracer's focus;
static callers beside), read_file, write_file (only inside the copy), apply_patch, revert_patch
and a bounded bash.

The model is any OpenAI-compatible endpoint with tool calling (--base-url, else $OPENAI_BASE_URL;
the key in $OPENAI_API_KEY or --api-key-env VAR), retried on 429/5xx as score does. Budgets end a
loop: --max-tool-calls (default ${DEFAULT_BUDGETS.maxToolCalls}), --max-tokens (${DEFAULT_BUDGETS.maxTokens}), --max-seconds (${DEFAULT_BUDGETS.maxSeconds}), and
--max-cost with prices per million tokens. Every message, tool call, capped tool result and token
count is stored as it happens; an audit that runs out of budget, or is interrupted (Ctrl+C, which
also stops the test or command running then), is kept as incomplete with the reason — never as
done — and --resume ID continues it. A done audit's refined explanation is stored as the agent's
"audited" explanation of the instance, so score and report compare it with the original.

--requirements first runs DeskCheck's requirement audit (§3.1.4–3.1.5): the model lists the
issue's requirements, writes a test of input/expected-output pairs for each (at most 8), and each
test runs before and after the patch: satisfied (passes after), violated (fails after; the test is
kept), or not checkable. The table is stored with the audit and given to the model before it audits.

--json prints {"audit": {"id", "status", "reason", "original", "refined", "tool_calls": [{"tool",
"arguments", "result"}], "requirements", "tokens": {"in", "out"}, "cost"}}; diff_execution results
carry {"before": {"exit_code", "outcome"}, "after": {…}, "delta": {…} | null}.`;

function auditJson(db: Db, a: AuditRow) {
  const msgs = auditMessages(db, a.id);
  return {
    audit: {
      id: a.id,
      instance: a.instance,
      agent: a.agent,
      status: a.status,
      reason: a.reason,
      model: a.model,
      original: a.original,
      refined: a.refined,
      tool_calls: msgs
        .filter(m => m.role === 'tool')
        // a result cut at the cap, or arguments the model wrote as no JSON, are kept as text
        .map(m => ({tool: m.tool, arguments: jsonOrText(m.arguments), result: jsonOrText(m.content)})),
      requirements: a.requirements,
      tokens: {in: a.tokens_in, out: a.tokens_out},
      cost: a.cost,
      started_at: a.started_at,
      finished_at: a.finished_at,
    },
  };
}

function jsonOrText(text: string | null): unknown {
  try {
    return JSON.parse(text ?? 'null');
  } catch {
    return text;
  }
}

const num = (v: string | undefined, flag: string): number | null => {
  if (v === undefined) return null;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`${flag} takes a number (got "${v}")`);
  return n;
};

export async function runAuditCommand(argv: string[]): Promise<number> {
  const {values, positionals} = parse(argv, {
    ...COMMON_OPTIONS,
    'buggy-dir': {type: 'string'},
    repo: {type: 'string'},
    patch: {type: 'string'},
    explanation: {type: 'string'},
    issue: {type: 'string'},
    instance: {type: 'string'},
    agent: {type: 'string'},
    model: {type: 'string'},
    'base-url': {type: 'string'},
    'api-key-env': {type: 'string'},
    'max-tool-calls': {type: 'string'},
    'max-tokens': {type: 'string'},
    'max-seconds': {type: 'string'},
    'max-cost': {type: 'string'},
    'price-in': {type: 'string'},
    'price-out': {type: 'string'},
    resume: {type: 'string'},
    requirements: {type: 'boolean'},
    ...SANDBOX_OPTIONS,
  });
  if (values.help) {
    say(AUDIT_HELP);
    return EXIT.ok;
  }
  const [sub, idText] = positionals;
  if (sub === 'list' || sub === 'show') {
    const {db} = await openStore(values.db, 'read');
    try {
      if (sub === 'list') {
        const rows = listAudits(db);
        if (values.json) printJson(rows.map(a => auditJson(db, a).audit));
        else {
          for (const a of rows)
            say(
              `#${a.id}  ${a.status.padEnd(10)} ${cell(a.instance)} · ${cell(a.agent)} · ${cell(a.model)} · ${a.tool_calls} tool calls${a.reason ? ` — ${cell(a.reason)}` : ''}`,
            );
          say(`${rows.length} audits`);
        }
        return EXIT.ok;
      }
      if (!idText || !/^\d+$/.test(idText)) throw new UsageError('audit show takes an audit id');
      const a = getAudit(db, Number(idText));
      if (!a) throw new NotFound(`no audit ${idText}`);
      const j = auditJson(db, a);
      if (values.json) printJson(j);
      else printAudit(j.audit);
      return EXIT.ok;
    } finally {
      db.close();
    }
  }
  const stored = positionals.length === 1 && /^\d+$/.test(positionals[0]!) ? Number(positionals[0]) : null;
  if (positionals.length && stored === null)
    throw new UsageError(`audit takes a run id, list, show ID, or the options to start one (got "${positionals[0]}")`);
  if (!values.model)
    throw new UsageError('audit needs --model NAME (a chat model with tool calling at an OpenAI-compatible endpoint)');
  let apiKey: string;
  try {
    apiKey = apiKeyOf(
      `the auditing model ${values.model}`,
      values['api-key-env'],
      process.env,
      '(or --api-key-env VAR)',
      values['base-url'] ?? process.env.OPENAI_BASE_URL,
    );
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const budgets: AuditBudgets = {
    maxToolCalls: positiveInt(values['max-tool-calls'], '--max-tool-calls') ?? DEFAULT_BUDGETS.maxToolCalls,
    maxTokens: positiveInt(values['max-tokens'], '--max-tokens') ?? DEFAULT_BUDGETS.maxTokens,
    maxSeconds: positiveInt(values['max-seconds'], '--max-seconds') ?? DEFAULT_BUDGETS.maxSeconds,
    maxCost: num(values['max-cost'], '--max-cost'),
    priceIn: num(values['price-in'], '--price-in'),
    priceOut: num(values['price-out'], '--price-out'),
  };
  if (budgets.maxCost !== null && (budgets.priceIn === null || budgets.priceOut === null))
    throw new UsageError('--max-cost needs --price-in and --price-out (dollars per million tokens)');
  const passEnv = passEnvOption(values['pass-env']);
  const ctrlC = ctrlCStops(
    'stopping: the transcript so far is kept and the audit marked incomplete (Ctrl+C again to quit at once)',
  );
  const options: AuditRunOptions = {
    model: {name: values.model, baseURL: values['base-url'] ?? process.env.OPENAI_BASE_URL, apiKey},
    budgets,
    python: values.python ?? process.env.DELTALENS_PYTHON ?? 'python3',
    sandbox: values['no-sandbox'] ? 'off' : 'require',
    passEnv,
    toolTimeoutS: 120,
    maxResultChars: 8000,
    signal: ctrlC.signal,
    onEvent: e => {
      if (!values.json || process.stderr.isTTY) warn(`audit · ${e.kind}: ${e.text}`);
    },
  };
  let start: (db: Db) => Promise<AuditRow>;
  if (values.resume !== undefined) {
    if (!/^\d+$/.test(values.resume)) throw new UsageError(`--resume takes an audit id (got "${values.resume}")`);
    start = async db => {
      if (!getAudit(db, Number(values.resume))) throw new NotFound(`no audit ${values.resume}`);
      return continueAudit(db, Number(values.resume), options);
    };
  } else if (stored !== null || (values.instance && values.agent && !values.patch && !values.explanation)) {
    if (values['buggy-dir'] && !existsSync(values['buggy-dir']))
      throw new UsageError(`--buggy-dir ${values['buggy-dir']}: no such folder`);
    if (values['buggy-dir'] && values.repo) throw new UsageError('give --buggy-dir DIR or --repo CLONE, not both');
    start = async db => {
      const id = stored ?? runOf(db, values.instance!, values.agent!);
      if (id === null) throw new NotFound(`no stored run of ${values.agent} on ${values.instance} with a patch`);
      let buggyDir = values['buggy-dir'] ? resolve(values['buggy-dir']) : null;
      if (values.repo) {
        const instance = getTrajectory(db, id)!.instance;
        try {
          buggyDir = (
            await instanceBaseTree(
              db,
              instance,
              values.repo,
              await pythonRunner(options.python, options.sandbox, {passEnv}),
            )
          ).dir;
        } catch (error) {
          if (error instanceof InstanceTraceError || error instanceof WorkspaceError) throw new NotFound(error.message);
          throw error;
        }
      }
      let inputs;
      try {
        inputs = inputsFromRun(db, id, buggyDir);
      } catch (error) {
        if (error instanceof AuditInputError) throw new UsageError(error.message);
        throw error;
      }
      return runAudit(db, {...inputs, requirements: values.requirements}, options);
    };
  } else {
    for (const [flag, v] of [
      ['--buggy-dir', values['buggy-dir']],
      ['--patch', values.patch],
      ['--explanation', values.explanation],
    ] as const) {
      if (!v) throw new UsageError(`audit needs ${flag} (or --resume ID)`);
      if (!existsSync(v)) throw new UsageError(`${flag} ${v}: no such ${flag === '--buggy-dir' ? 'folder' : 'file'}`);
    }
    if (values.issue && !existsSync(values.issue)) throw new UsageError(`--issue ${values.issue}: no such file`);
    const read = (f: string) => readFileSync(f, 'utf8');
    start = db =>
      runAudit(
        db,
        {
          instance: values.instance ?? 'audit',
          agent: values.agent ?? 'audited-agent',
          trajectory: null,
          buggyDir: resolve(values['buggy-dir']!),
          patch: read(values.patch!),
          explanation: read(values.explanation!).trim(),
          issue: values.issue ? read(values.issue) : '(no issue text given)',
          requirements: values.requirements,
        },
        options,
      ).catch(error => {
        if (error instanceof AuditInputError) throw new UsageError(error.message);
        throw error;
      });
  }
  const {db} = await openStore(values.db, 'create');
  ctrlC.on();
  try {
    const a = await start(db);
    const j = auditJson(db, a);
    if (values.json) printJson(j);
    else printAudit(j.audit);
    return a.status === 'done' ? EXIT.ok : EXIT.failed;
  } catch (error) {
    if (error instanceof SandboxMissing) {
      warn(`deltalens: ${error.message}`);
      return EXIT.failed;
    }
    throw error;
  } finally {
    ctrlC.off();
    db.close();
  }
}

function printAudit(a: ReturnType<typeof auditJson>['audit']): void {
  say(`audit #${a.id} · ${a.instance} · ${a.agent} · ${a.model} · ${a.status}${a.reason ? ` — ${a.reason}` : ''}`);
  say(
    `${a.tool_calls.length} tool calls · ${a.tokens.in} tokens in, ${a.tokens.out} out${a.cost !== null ? ` · $${a.cost.toFixed(4)}` : ''}`,
  );
  for (const t of a.tool_calls) {
    say(`  ${String(t.tool).padEnd(18)} ${toolResultBrief(t.result, 160)}`);
  }
  say('');
  say('original:');
  say(`  ${a.original}`);
  say('refined:');
  say(`  ${a.refined ?? '(none: the audit did not finish)'}`);
}
