import type {LensResult, LensRun, RunScore} from '../core/lens/build.js';
import {Labeller, labelSteps, type Label, type Stage} from '../core/lens/labeller.js';
import type {Tier} from '../core/lens/quality.js';
import {cohenKappa, type CohenResult} from '../core/scoring/agreement.js';
import {extractStates, stateExtractor, type ActionState, type StepInput} from '../core/lens/state.js';
import {toolKind} from '../core/trajectory/formats.js';
import type {Step} from '../core/trajectory/model.js';

/** A step as the lens reads it: what its tool does under its format's names, not the name. */
function stepInput(format: string, step: Pick<Step, 'tool' | 'args' | 'actionText'>): StepInput {
  return {kind: toolKind(format, step.tool), args: step.args, actionText: step.actionText};
}
import type {Db} from './db.js';

/** Stage and rule JSON for each step of a run of `format` as it is written (import labels streamed runs as read). */
export function streamingLabels(format: string): (step: Step) => {stage: string; rule: string} {
  const extract = stateExtractor();
  const labeller = new Labeller();
  return step => {
    const state = extract(stepInput(format, step));
    const l = labeller.next(state);
    return {stage: l.stage, rule: JSON.stringify({rule: l.rule, ...l.inputs, state})};
  };
}

/**
 * Labels every step of one trajectory: step.intent_stage (E/I/V/O) and step.labeller_rule
 * (JSON: the rule that fired, its inputs, and the state it read).
 */
function labelTrajectory(db: Db, trajectoryId: number): {states: ActionState[]; labels: Label[]} {
  const rows = db
    .prepare(
      'SELECT idx, action_tool AS tool, action_args AS args, action_text AS actionText FROM step WHERE trajectory = ? ORDER BY idx',
    )
    .all(trajectoryId) as {
    idx: number;
    tool: string | null;
    args: string | null;
    actionText: string | null;
  }[];
  const format = db.prepare('SELECT source_format FROM trajectory WHERE id = ?').pluck().get(trajectoryId) as string;
  const states = extractStates(
    rows.map(r =>
      stepInput(format, {
        tool: r.tool,
        actionText: r.actionText,
        args: r.args ? (JSON.parse(r.args) as Record<string, unknown>) : null,
      }),
    ),
  );
  const labels = labelSteps(states);
  const update = db.prepare('UPDATE step SET intent_stage = ?, labeller_rule = ? WHERE trajectory = ? AND idx = ?');
  db.transaction(() => {
    rows.forEach((r, i) =>
      update.run(
        labels[i]!.stage,
        JSON.stringify({rule: labels[i]!.rule, ...labels[i]!.inputs, state: states[i]}),
        trajectoryId,
        r.idx,
      ),
    );
  }).immediate();
  return {states, labels};
}

export function labelAll(db: Db): {trajectories: number; steps: number} {
  const ids = db.prepare('SELECT id FROM trajectory ORDER BY id').pluck().all() as number[];
  let steps = 0;
  for (const id of ids) steps += labelTrajectory(db, id).labels.length;
  return {trajectories: ids.length, steps};
}

const STAGE_SET = new Set(['E', 'I', 'V', 'O']);

/** Records (or replaces) an annotator's stage for one step; the labeller's label stays as it was. */
export function setStageOverride(
  db: Db,
  o: {trajectory: number; idx: number; annotator: string; stage: string; note?: string | null},
): void {
  if (!STAGE_SET.has(o.stage)) throw new RangeError(`stage must be one of E, I, V, O (got "${o.stage}")`);
  if (!o.annotator.trim()) throw new RangeError('an annotator name is needed');
  const exists = db.prepare('SELECT 1 FROM step WHERE trajectory = ? AND idx = ?').get(o.trajectory, o.idx);
  if (!exists) throw new RangeError(`trajectory ${o.trajectory} has no step ${o.idx}`);
  db.prepare(
    `INSERT INTO stage_annotation (trajectory, idx, annotator, stage, note) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (trajectory, idx, annotator) DO UPDATE SET stage = excluded.stage, note = excluded.note, created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`,
  ).run(o.trajectory, o.idx, o.annotator, o.stage, o.note ?? null);
}

export function removeStageOverride(db: Db, trajectory: number, idx: number, annotator: string): boolean {
  return (
    db
      .prepare('DELETE FROM stage_annotation WHERE trajectory = ? AND idx = ? AND annotator = ?')
      .run(trajectory, idx, annotator).changes > 0
  );
}

/**
 * The runs AgentLens scores: every stored trajectory with its agent, resolved status and its
 * steps' stages and states. Where people corrected a step's stage, the latest correction is
 * used (`overridden` counts them).
 */
export function loadLensRuns(db: Db, instance?: string): {runs: LensRun[]; overridden: number} {
  const where = instance ? 'WHERE t.instance = ?' : '';
  const heads = db
    .prepare(
      `SELECT t.id, t.instance, a.name AS agent, t.resolved FROM trajectory t JOIN agent a ON a.id = t.agent ${where} ORDER BY t.id`,
    )
    .all(...(instance ? [instance] : [])) as {id: number; instance: string; agent: string; resolved: number | null}[];
  const byId = new Map<number, LensRun>(
    heads.map(h => [
      h.id,
      {
        id: h.id,
        instance: h.instance,
        agent: h.agent,
        resolved: h.resolved === null ? null : h.resolved === 1,
        steps: [],
      },
    ]),
  );
  const steps = db.prepare(
    `SELECT s.trajectory, s.idx, s.intent_stage AS stage, s.labeller_rule AS rule,
            (SELECT sa.stage FROM stage_annotation sa WHERE sa.trajectory = s.trajectory AND sa.idx = s.idx ORDER BY sa.created_at DESC LIMIT 1) AS person
       FROM step s ${instance ? 'JOIN trajectory t ON t.id = s.trajectory WHERE t.instance = ?' : ''} ORDER BY s.trajectory, s.idx`,
  );
  let overridden = 0;
  for (const row of steps.iterate(...(instance ? [instance] : [])) as Iterable<{
    trajectory: number;
    idx: number;
    stage: string | null;
    rule: string | null;
    person: string | null;
  }>) {
    const run = byId.get(row.trajectory);
    if (!run) continue;
    const state = row.rule ? ((JSON.parse(row.rule) as {state?: ActionState}).state ?? null) : null;
    if (!state || !row.stage) continue; // unlabelled (a database from before labels): lens label fixes it
    if (row.person) overridden += 1;
    run.steps.push({idx: row.idx, stage: (row.person ?? row.stage) as Stage, state});
  }
  return {runs: [...byId.values()], overridden};
}

/** Replaces the stored lens build with this one (one transaction). */
/** Per run, the scopes its states were placed in: {step idx: {path: scope}} (runs without any are left out). */
export function scopesOf(runs: LensRun[]): Map<number, Record<number, Record<string, string>>> {
  const out = new Map<number, Record<number, Record<string, string>>>();
  for (const run of runs) {
    const steps: Record<number, Record<string, string>> = {};
    for (const s of run.steps) {
      const placed = s.state.files.filter(f => f.scope);
      if (placed.length) steps[s.idx] = Object.fromEntries(placed.map(f => [f.path, f.scope!]));
    }
    if (Object.keys(steps).length) out.set(run.id, steps);
  }
  return out;
}

/** Puts the scopes the last lens build found back on the runs' states (for the explorer's reference tree). */
export function applyStoredScopes(db: Db, runs: LensRun[]): void {
  const get = db.prepare('SELECT scopes FROM lens_score WHERE trajectory = ? AND scopes IS NOT NULL').pluck();
  for (const run of runs) {
    const json = get.get(run.id) as string | undefined;
    if (!json) continue;
    const steps = JSON.parse(json) as Record<string, Record<string, string>>;
    for (const s of run.steps) {
      const placed = steps[s.idx];
      if (placed)
        s.state = {...s.state, files: s.state.files.map(f => (placed[f.path] ? {...f, scope: placed[f.path]} : f))};
    }
  }
}

export function saveLensResult(
  db: Db,
  result: LensResult,
  scopes: Map<number, Record<number, Record<string, string>>> = new Map(),
): number {
  return db
    .transaction(() => {
      db.prepare('DELETE FROM lens_build').run();
      const build = Number(
        db
          .prepare('INSERT INTO lens_build (options, threshold, skipped, rounds, rankings) VALUES (?, ?, ?, ?, ?)')
          .run(
            JSON.stringify(result.options),
            JSON.stringify(result.threshold),
            JSON.stringify(result.skipped),
            JSON.stringify(result.rounds),
            JSON.stringify(result.rankings),
          ).lastInsertRowid,
      );
      const insert = db.prepare(
        'INSERT INTO lens_score (trajectory, build, instance, quality, signals, tier, mechanism, waste, divergence, reference, scopes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      for (const r of result.runs) {
        const placed = scopes.get(r.trajectory);
        insert.run(
          r.trajectory,
          build,
          r.instance,
          r.quality,
          JSON.stringify(r.signals),
          r.tier,
          r.mechanism && JSON.stringify(r.mechanism),
          JSON.stringify(r.waste),
          r.divergence,
          JSON.stringify(r.reference),
          placed ? JSON.stringify(placed) : null,
        );
      }
      return build;
    })
    .immediate();
}

interface StoredLens extends LensResult {
  built_at: string;
}

/** The stored lens build, or null when `lens build` has not run on this database. */
export function loadLensResult(db: Db): StoredLens | null {
  const b = db.prepare('SELECT * FROM lens_build ORDER BY id DESC LIMIT 1').get() as
    | {
        id: number;
        options: string;
        threshold: string;
        skipped: string;
        rounds: string;
        rankings: string;
        built_at: string;
      }
    | undefined;
  if (!b) return null;
  const rows = db
    .prepare(
      `SELECT ls.*, a.name AS agent, t.resolved FROM lens_score ls JOIN trajectory t ON t.id = ls.trajectory JOIN agent a ON a.id = t.agent
        WHERE ls.build = ? ORDER BY ls.instance, ls.trajectory`,
    )
    .all(b.id) as ScoreRow[];
  return {
    options: JSON.parse(b.options) as LensResult['options'],
    threshold: JSON.parse(b.threshold) as LensResult['threshold'],
    skipped: JSON.parse(b.skipped) as LensResult['skipped'],
    rounds: JSON.parse(b.rounds) as LensResult['rounds'],
    rankings: JSON.parse(b.rankings) as LensResult['rankings'],
    built_at: b.built_at,
    runs: rows.map(scoreOfRow),
  };
}

interface ScoreRow {
  trajectory: number;
  instance: string;
  agent: string;
  resolved: number | null;
  quality: number;
  signals: string;
  tier: Tier | null;
  mechanism: string | null;
  waste: string;
  divergence: number | null;
  reference: string;
}

function scoreOfRow(r: ScoreRow): RunScore {
  return {
    trajectory: r.trajectory,
    instance: r.instance,
    agent: r.agent,
    resolved: r.resolved === null ? null : r.resolved === 1,
    quality: r.quality,
    signals: JSON.parse(r.signals) as RunScore['signals'],
    tier: r.tier,
    mechanism: r.mechanism ? (JSON.parse(r.mechanism) as RunScore['mechanism']) : null,
    waste: JSON.parse(r.waste) as RunScore['waste'],
    divergence: r.divergence,
    reference: JSON.parse(r.reference) as RunScore['reference'],
  };
}

/** One run's stored score (with the build's threshold), or null when it was not scored. */
export function lensScoreOf(db: Db, trajectory: number): (RunScore & {threshold: LensResult['threshold']}) | null {
  const r = db
    .prepare(
      `SELECT ls.*, a.name AS agent, t.resolved, b.threshold AS build_threshold FROM lens_score ls JOIN lens_build b ON b.id = ls.build
         JOIN trajectory t ON t.id = ls.trajectory JOIN agent a ON a.id = t.agent WHERE ls.trajectory = ?`,
    )
    .get(trajectory) as (ScoreRow & {build_threshold: string}) | undefined;
  if (!r) return null;
  return {
    ...scoreOfRow(r),
    threshold: JSON.parse(r.build_threshold) as LensResult['threshold'],
  };
}

/** Why a run has no score: no build yet, or its task was skipped (and why). */
export function whyNotScored(db: Db, instance: string): string {
  const b = db.prepare('SELECT skipped FROM lens_build ORDER BY id DESC LIMIT 1').pluck().get() as string | undefined;
  if (b === undefined) return 'not scored: lens build has not run on this database';
  const skipped = (JSON.parse(b) as LensResult['skipped']).find(s => s.instance === instance);
  return skipped ? `not scored: ${skipped.reason}` : 'not scored: imported after the last lens build';
}

/** The stored build's threshold and rankings, or null. */
export function lensRankings(
  db: Db,
): {threshold: LensResult['threshold']; rankings: LensResult['rankings']; built_at: string} | null {
  const b = db.prepare('SELECT threshold, rankings, built_at FROM lens_build ORDER BY id DESC LIMIT 1').get() as
    | {threshold: string; rankings: string; built_at: string}
    | undefined;
  return b
    ? {
        threshold: JSON.parse(b.threshold) as LensResult['threshold'],
        rankings: JSON.parse(b.rankings) as LensResult['rankings'],
        built_at: b.built_at,
      }
    : null;
}

/** Labeller vs people: every step a person labelled, per annotator and over all. */
export function stageAgreement(db: Db): {annotators: ({annotator: string} & CohenResult)[]; overall: CohenResult} {
  const rows = db
    .prepare(
      'SELECT sa.annotator, sa.stage AS person, s.intent_stage AS labeller FROM stage_annotation sa JOIN step s ON s.trajectory = sa.trajectory AND s.idx = sa.idx WHERE s.intent_stage IS NOT NULL ORDER BY sa.annotator',
    )
    .all() as {annotator: string; person: string; labeller: string}[];
  const cats = ['E', 'I', 'V', 'O'];
  const annotators = [...new Set(rows.map(r => r.annotator))].map(annotator => {
    const own = rows.filter(r => r.annotator === annotator);
    return {
      annotator,
      ...cohenKappa(
        own.map(r => r.labeller),
        own.map(r => r.person),
        cats,
      ),
    };
  });
  return {
    annotators,
    overall: cohenKappa(
      rows.map(r => r.labeller),
      rows.map(r => r.person),
      cats,
    ),
  };
}
