import {Labeller, labelSteps, type Label} from '../core/lens/labeller.js';
import {extractStates, stateExtractor, type ActionState, type StepInput} from '../core/lens/state.js';
import type {Db} from './db.js';

/** Stage and rule JSON for each step as it is written (import labels streamed runs as read). */
export function streamingLabels(): (step: StepInput) => {stage: string; rule: string} {
  const extract = stateExtractor();
  const labeller = new Labeller();
  return step => {
    const state = extract(step);
    const l = labeller.next(state);
    return {stage: l.stage, rule: JSON.stringify({rule: l.rule, ...l.inputs, state})};
  };
}

/**
 * Labels every step of one trajectory: step.intent_stage (E/I/V/O) and step.labeller_rule
 * (JSON: the rule that fired, its inputs, and the state it read).
 */
export function labelTrajectory(db: Db, trajectoryId: number): {states: ActionState[]; labels: Label[]} {
  const rows = db.prepare('SELECT idx, action_tool AS tool, action_args AS args, action_text AS actionText FROM step WHERE trajectory = ? ORDER BY idx').all(trajectoryId) as {
    idx: number;
    tool: string | null;
    args: string | null;
    actionText: string | null;
  }[];
  const states = extractStates(rows.map(r => ({tool: r.tool, actionText: r.actionText, args: r.args ? (JSON.parse(r.args) as Record<string, unknown>) : null})));
  const labels = labelSteps(states);
  const update = db.prepare('UPDATE step SET intent_stage = ?, labeller_rule = ? WHERE trajectory = ? AND idx = ?');
  db.transaction(() => {
    rows.forEach((r, i) => update.run(labels[i]!.stage, JSON.stringify({rule: labels[i]!.rule, ...labels[i]!.inputs, state: states[i]}), trajectoryId, r.idx));
  })();
  return {states, labels};
}

export function labelAll(db: Db): {trajectories: number; steps: number} {
  const ids = db.prepare('SELECT id FROM trajectory ORDER BY id').pluck().all() as number[];
  let steps = 0;
  for (const id of ids) steps += labelTrajectory(db, id).labels.length;
  return {trajectories: ids.length, steps};
}
