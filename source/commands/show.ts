import {say} from './output.js';
import {type Db} from '../store/db.js';
import {getSteps, getTrajectory, type StepRow, type TrajectoryDetail} from '../store/trajectories.js';
import {openStore} from './db-path.js';
import {reasoningOf} from '../store/reasoning.js';
import {COMMON_OPTIONS, EXIT, NotFound, parse, printJson, UsageError} from './args.js';

export const SHOW_HELP = `Usage: deltalens show trajectory ID [--json] [--db FILE]

Print one trajectory: status, explanation, patch and every step (thought, action, observation).
With --json: {"id", "instance", "agent", "model", "format", "resolved", "resolved_source",
"exit_status", "explanation", "patch", …, "steps": [{"idx", "thought", "tool", "args",
"action", "observation", "stage": "E" | "I" | "V" | "O", "rule", "rule_inputs",
"action_state", "reasoning": [{"family": A…E | obs, "kind", "span": [start, end], "detector",
"text", "claim"}]}]} — stage and rule from the AgentLens intent labeller, reasoning marks from
the code-reasoning detector (deltalens reasoning --help; span: offsets into the thought).`;

export {NotFound};

export async function runShow(argv: string[]): Promise<number> {
  const {values, positionals} = parse(argv, COMMON_OPTIONS);
  if (values.help) {
    say(SHOW_HELP);
    return EXIT.ok;
  }
  const [what, idText, ...rest] = positionals;
  if (what !== 'trajectory') throw new UsageError(`show takes "trajectory ID" (got "${positionals.join(' ')}")`);
  if (idText === undefined || rest.length || !/^\d+$/.test(idText)) throw new UsageError('show trajectory takes one numeric ID');
  const {db} = await openStore(values.db, 'read');
  try {
    const detail = trajectoryJson(db, Number(idText));
    if (values.json) printJson(detail);
    else printHuman(detail);
  } finally {
    db.close();
  }
  return EXIT.ok;
}

export function trajectoryJson(db: Db, id: number) {
  const t: TrajectoryDetail | null = getTrajectory(db, id);
  if (!t) throw new NotFound(`no trajectory with id ${id}`);
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
    steps: (() => {
      // the marks by step, in one pass (a filter per step was quadratic: 100,000 steps took minutes)
      const byStep = new Map<number, ReturnType<typeof reasoningOf>>();
      for (const m of reasoningOf(db, id)) {
        const list = byStep.get(m.step);
        if (list) list.push(m);
        else byStep.set(m.step, [m]);
      }
      return getSteps(db, id).map(s => ({...stepJson(s), reasoning: (byStep.get(s.idx) ?? []).map(m => ({family: m.family, kind: m.kind, span: m.span, detector: m.detector, text: m.text, claim: m.claim}))}));
    })(),
  };
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

function printHuman(t: ReturnType<typeof trajectoryJson>): void {
  const status = t.resolved === null ? 'unknown' : t.resolved ? 'resolved' : 'unresolved';
  say(`#${t.id} ${t.instance}  ${t.agent}${t.model ? ` (${t.model})` : ''}  ${status}  exit: ${t.exit_status ?? '-'}`);
  say(`source: ${t.source_path}${t.source_locator ? ` (${t.source_locator})` : ''}`);
  for (const s of t.steps) {
    say(`\n── step ${s.idx} ${s.tool ?? ''}`);
    if (s.thought) say(s.thought);
    if (s.action) say(`$ ${s.action}`);
    if (s.observation) say(s.observation.length > 2000 ? `${s.observation.slice(0, 2000)}\n… (${s.observation.length} chars; --json for all)` : s.observation);
  }
  say(`\n── explanation\n${t.explanation ?? '(none)'}`);
  say(`\n── patch\n${t.patch ?? '(none)'}`);
}
