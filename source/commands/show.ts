import {say} from './output.js';
import type {Db} from '../store/db.js';
import {getSteps, getTrajectory, type StepRow, type TrajectoryDetail} from '../store/trajectories.js';
import {openStore} from './db-path.js';
import {reasoningOf} from '../store/reasoning.js';
import {markPlace} from '../services/reasoning.js';
import {COMMON_OPTIONS, EXIT, NotFound, parse, UsageError} from './args.js';
import {terminalSafeJson} from '../core/text/sanitize.js';
import {showInstance} from './instances.js';

export const SHOW_HELP = `Usage: deltalens show trajectory ID [--json] [--db FILE]
       deltalens show instance ID [--json] [--db FILE]

show instance: one SWE-bench instance — its record (repository, base commit, version, FAIL_TO_PASS
and PASS_TO_PASS, problem statement, hints, gold and test patches), how many runs, traced pairs
and questions it has, and the questions the latest questions build did not build, with why; with
--json every field, "record": the dataset row as imported, and "not_built": [{"stage", "agent",
"reason", "at"}].

show trajectory: print one trajectory: status, explanation, patch and every step (thought, action, observation).
With --json: {"id", "instance", "agent", "model", "format", "resolved", "resolved_source",
"exit_status", "explanation", "patch", …, "steps": [{"idx", "thought", "tool", "args",
"action", "observation", "stage": "E" | "I" | "V" | "O", "rule", "rule_inputs",
"action_state", "reasoning": [{"family": A…E | obs, "kind", "on": "thought" | "action", "span": [start, end], "detector",
"text", "claim"}]}]} — stage and rule from the AgentLens intent labeller, reasoning marks from
every code-reasoning detector that tagged the run, each mark naming its detector ("default", and
"deskcheck" after deltalens reasoning tag --detector deskcheck; span: offsets into the step's
thought, or into its action where "on" says so).`;

export {NotFound};

export async function runShow(argv: string[]): Promise<number> {
  const {values, positionals} = parse(argv, COMMON_OPTIONS);
  if (values.help) {
    say(SHOW_HELP);
    return EXIT.ok;
  }
  const [what, idText, ...rest] = positionals;
  if (what === 'instance') {
    if (idText === undefined || rest.length) throw new UsageError('show instance takes one instance id');
    const {db} = await openStore(values.db, 'read');
    try {
      showInstance(db, idText, Boolean(values.json));
    } finally {
      db.close();
    }
    return EXIT.ok;
  }
  if (what !== 'trajectory')
    throw new UsageError(`show takes "trajectory ID" or "instance ID" (got "${positionals.join(' ')}")`);
  if (idText === undefined || rest.length || !/^\d+$/.test(idText))
    throw new UsageError('show trajectory takes one numeric ID');
  const {db} = await openStore(values.db, 'read');
  try {
    const id = Number(idText);
    const t = getTrajectory(db, id);
    if (!t) throw new NotFound(`no trajectory with id ${id}`);
    if (values.json) printStreamedJson(headerJson(t), stepsJson(db, id));
    else printHuman(headerJson(t), stepsJson(db, id));
  } finally {
    db.close();
  }
  return EXIT.ok;
}

function headerJson(t: TrajectoryDetail) {
  return {
    id: t.id,
    instance: t.instance,
    agent: t.agent,
    model: t.model,
    format: t.format,
    resolved: t.resolved,
    resolved_source: t.resolvedSource,
    exit_status: t.exitStatus,
    source_path: t.sourcePath,
    source_locator: t.sourceLocator,
    content_hash: t.contentHash,
    cost: t.cost,
    tokens_in: t.tokensIn,
    tokens_out: t.tokensOut,
    imported_at: t.importedAt,
    meta: t.meta,
    explanation: t.explanation,
    patch: t.patch,
  };
}

/** Steps a page at a time with their marks (a run of 100,000 steps never sits whole in memory;
 * a filter over all marks per step was quadratic: 100,000 steps took minutes). */
function* stepsJson(db: Db, id: number, page = 500) {
  for (let from = 0; ; ) {
    const rows = getSteps(db, id, from, page);
    const byStep = new Map<number, ReturnType<typeof reasoningOf>>();
    for (const m of rows.length ? reasoningOf(db, id, null, {from: rows[0]!.idx, to: rows.at(-1)!.idx}) : []) {
      const list = byStep.get(m.step);
      if (list) list.push(m);
      else byStep.set(m.step, [m]);
    }
    for (const s of rows)
      yield {
        ...stepJson(s),
        reasoning: (byStep.get(s.idx) ?? []).map(m => ({
          family: m.family,
          kind: m.kind,
          ...markPlace({thought: s.thought, action: s.actionText, tool: s.tool}, m),
          detector: m.detector,
          text: m.text,
          claim: m.claim,
        })),
      };
    if (rows.length < page) return;
    from = rows.at(-1)!.idx + 1;
  }
}

/** The same text as printJson({...header, steps: [...]}), written a step at a time. */
function printStreamedJson(header: ReturnType<typeof headerJson>, steps: Iterable<unknown>): void {
  const head = JSON.stringify({...header, steps: []}, null, 2);
  const cut = head.lastIndexOf('[]');
  let first = true;
  const write = (text: string) => process.stdout.write(terminalSafeJson(text));
  write(head.slice(0, cut));
  for (const step of steps) {
    write(`${first ? '[\n' : ',\n'}${JSON.stringify(step, null, 2).replace(/^/gm, '    ')}`);
    first = false;
  }
  write(`${first ? '[]' : '\n  ]'}${head.slice(cut + 2)}\n`);
}

function stepJson(s: StepRow) {
  return {
    idx: s.idx,
    thought: s.thought,
    tool: s.tool,
    args: s.args,
    action: s.actionText,
    observation: s.observation,
    stage: s.intentStage,
    ...ruleJson(s.labellerRule),
  };
}

/** labeller_rule holds {rule, first_source_edit, file_class?, group?, state}. */
function ruleJson(text: string | null) {
  if (!text) return {rule: null};
  try {
    const {rule, state, ...inputs} = JSON.parse(text) as {rule: string; state?: unknown};
    return {rule, rule_inputs: inputs, action_state: state ?? null};
  } catch {
    return {rule: text};
  }
}

function printHuman(t: ReturnType<typeof headerJson>, steps: Iterable<ReturnType<typeof stepJson>>): void {
  const status = t.resolved === null ? 'unknown' : t.resolved ? 'resolved' : 'unresolved';
  say(`#${t.id} ${t.instance}  ${t.agent}${t.model ? ` (${t.model})` : ''}  ${status}  exit: ${t.exit_status ?? '-'}`);
  say(`source: ${t.source_path}${t.source_locator ? ` (${t.source_locator})` : ''}`);
  for (const s of steps) {
    say(`\n── step ${s.idx} ${s.tool ?? ''}`);
    if (s.thought) say(s.thought);
    if (s.action) say(`$ ${s.action}`);
    if (s.observation)
      say(
        s.observation.length > 2000
          ? `${s.observation.slice(0, 2000)}\n… (${s.observation.length} chars; --json for all)`
          : s.observation,
      );
  }
  say(`\n── explanation\n${t.explanation ?? '(none)'}`);
  say(`\n── patch\n${t.patch ?? '(none)'}`);
}
