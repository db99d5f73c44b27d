import {
  DEFAULT_SETTINGS,
  detectReasoning,
  DETECTOR_VERSION,
  type MarkFamily,
  type ReasoningMark,
} from '../core/reasoning/detect.js';
import type {Db} from './db.js';

/** The tagging run of a detector with these settings (one row per detector, version and settings). */
export function ensureReasoningRun(db: Db, detector: string, version: number, settings: unknown): number {
  const json = JSON.stringify(settings);
  const found = db
    .prepare(
      'SELECT id FROM reasoning_run WHERE detector = ? AND version = ? AND settings = ? ORDER BY id DESC LIMIT 1',
    )
    .pluck()
    .get(detector, version, json) as number | undefined;
  if (found !== undefined) return found;
  return Number(
    db.prepare('INSERT INTO reasoning_run (detector, version, settings) VALUES (?, ?, ?)').run(detector, version, json)
      .lastInsertRowid,
  );
}

/** Writes one step's marks (call inside the import's or the re-tagging's transaction). */
export function reasoningWriter(
  db: Db,
  trajectory: number,
  run: number,
  detector: string,
): (step: number, marks: ReasoningMark[]) => void {
  const insert = db.prepare(
    'INSERT INTO reasoning_tag (trajectory, step, category, subcategory, evidence, run, detector, span_start, span_end) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  return (step, marks) => {
    for (const m of marks)
      insert.run(trajectory, step, m.family, m.kind, m.text.slice(0, 500), run, detector, m.span[0], m.span[1]);
  };
}

/** Removes a detector's tags and decision of one run (before it is tagged again). */
export function clearReasoning(db: Db, trajectory: number, detector: string): void {
  db.prepare('DELETE FROM reasoning_tag WHERE trajectory = ? AND detector = ?').run(trajectory, detector);
  db.prepare('DELETE FROM reasoning_decision WHERE trajectory = ? AND detector = ?').run(trajectory, detector);
}

export interface StoredMark {
  step: number;
  family: MarkFamily;
  kind: string;
  span: [number, number];
  text: string;
  detector: string;
  claim: unknown;
}

/** A run's marks by one detector (null: by every detector that tagged it, step by step, each detector's together), in step and text order. */
export function reasoningOf(
  db: Db,
  trajectory: number,
  detector: string | null = 'default',
  steps: {from: number; to: number} = {from: 0, to: Number.MAX_SAFE_INTEGER},
): StoredMark[] {
  const rows = db
    .prepare(
      `SELECT step, category AS family, subcategory AS kind, span_start AS s, span_end AS e, evidence AS text, detector, claim FROM reasoning_tag
       WHERE trajectory = ? AND (? IS NULL OR detector = ?) AND step BETWEEN ? AND ? ORDER BY step, detector, span_start`,
    )
    .all(trajectory, detector, detector, steps.from, steps.to) as {
    step: number;
    family: MarkFamily;
    kind: string;
    s: number;
    e: number;
    text: string;
    detector: string;
    claim: string | null;
  }[];
  return rows.map(r => ({
    step: r.step,
    family: r.family,
    kind: r.kind,
    span: [r.s, r.e],
    text: r.text,
    detector: r.detector,
    claim: r.claim === null ? null : JSON.parse(r.claim),
  }));
}

/** Every tagged step's families, with the run's agent, resolution and the step's intent stage. */
export function reasoningRows(
  db: Db,
  detector = 'default',
): {
  trajectory: number;
  agent: string;
  instance: string;
  resolved: number | null;
  step: number;
  stage: string | null;
  family: MarkFamily;
  kind: string;
}[] {
  return db
    .prepare(
      `SELECT r.trajectory, a.name AS agent, t.instance, t.resolved, r.step,
              coalesce((SELECT sa.stage FROM stage_annotation sa WHERE sa.trajectory = r.trajectory AND sa.idx = r.step ORDER BY sa.created_at DESC LIMIT 1), s.intent_stage) AS stage,
              r.category AS family, r.subcategory AS kind
         FROM reasoning_tag r JOIN trajectory t ON t.id = r.trajectory JOIN agent a ON a.id = t.agent
         LEFT JOIN step s ON s.trajectory = r.trajectory AND s.idx = r.step
        WHERE r.detector = ? ORDER BY r.trajectory, r.step`,
    )
    .all(detector) as never;
}

/** Every run with its agent and resolution (the denominators of the report). */
export function runsForReasoning(
  db: Db,
): {trajectory: number; agent: string; instance: string; resolved: number | null}[] {
  return db
    .prepare(
      'SELECT t.id AS trajectory, a.name AS agent, t.instance, t.resolved FROM trajectory t JOIN agent a ON a.id = t.agent ORDER BY t.id',
    )
    .all() as never;
}

/** The steps' thoughts (and actions) of one run, for (re-)tagging. */
export function thoughtsOf(
  db: Db,
  trajectory: number,
): {idx: number; thought: string | null; action: string | null; tool: string | null}[] {
  return db
    .prepare(
      'SELECT idx, thought, action_text AS action, action_tool AS tool FROM step WHERE trajectory = ? ORDER BY idx',
    )
    .all(trajectory) as never;
}

/** A detector's decision about a whole run (the deskcheck one's has_code_reasoning); a new one replaces it. */
export function setRunDecision(
  db: Db,
  trajectory: number,
  run: number,
  detector: string,
  hasCodeReasoning: boolean,
  evidence: unknown,
): void {
  db.prepare(
    'INSERT OR REPLACE INTO reasoning_decision (trajectory, detector, run, has_code_reasoning, evidence) VALUES (?, ?, ?, ?, ?)',
  ).run(trajectory, detector, run, hasCodeReasoning ? 1 : 0, JSON.stringify(evidence));
}

/** The runs a detector decided have code reasoning. */
export function runsDecided(db: Db, detector: string): Set<number> {
  return new Set(
    db
      .prepare('SELECT trajectory FROM reasoning_decision WHERE detector = ? AND has_code_reasoning = 1')
      .pluck()
      .all(detector) as number[],
  );
}

/** The settings each detector last tagged with. */
export function reasoningRuns(
  db: Db,
): {id: number; detector: string; version: number; settings: unknown; created_at: string; tags: number}[] {
  const rows = db
    .prepare(
      'SELECT r.id, r.detector, r.version, r.settings, r.created_at, (SELECT count(*) FROM reasoning_tag t WHERE t.run = r.id) AS tags FROM reasoning_run r ORDER BY r.id',
    )
    .all() as {id: number; detector: string; version: number; settings: string; created_at: string; tags: number}[];
  return rows.map(r => ({...r, settings: JSON.parse(r.settings)}));
}

/** Tags each step as it is written (import): the default detector, the task statement's lines
 * left out of the thought. */
export function reasoningTagger(
  db: Db,
  trajectory: number,
  task: string | null,
): (idx: number, thought: string | null) => void {
  const run = ensureReasoningRun(db, 'default', DETECTOR_VERSION, DEFAULT_SETTINGS);
  const write = reasoningWriter(db, trajectory, run, 'default');
  return (idx, thought) => write(idx, detectReasoning(thought, {task}));
}

/** Every run's id, in import order. */
export function trajectoryIds(db: Db): number[] {
  return db.prepare('SELECT id FROM trajectory ORDER BY id').pluck().all() as number[];
}

/** The instance a run is of. */
export function instanceOfRun(db: Db, trajectory: number): string | null {
  return (
    (db.prepare('SELECT instance FROM trajectory WHERE id = ?').pluck().get(trajectory) as string | undefined) ?? null
  );
}

/** Each step's intent stage (a person's correction first; '·' unlabelled) and the labeller's rule (run, source-edit, …), in order. */
export function stepLabels(db: Db, trajectory: number): {idx: number; stage: string; rule: string | null}[] {
  return db
    .prepare(
      `SELECT idx, coalesce((SELECT sa.stage FROM stage_annotation sa WHERE sa.trajectory = step.trajectory AND sa.idx = step.idx ORDER BY sa.created_at DESC LIMIT 1), intent_stage, '·') AS stage,
              json_extract(labeller_rule, '$.rule') AS rule
         FROM step WHERE trajectory = ? ORDER BY idx`,
    )
    .all(trajectory) as never;
}

/** The gold patch an instance record gives, if any. */
export function goldPatchOf(db: Db, instance: string): string | null {
  return (
    (db.prepare('SELECT gold_patch FROM instance WHERE id = ?').pluck().get(instance) as string | null | undefined) ??
    null
  );
}

/** One character per step: the first code-reasoning family of its thought, '·' where none. */
export function reasoningLetters(db: Db, trajectory: number, detector = 'default'): string {
  const steps = db.prepare('SELECT count(*) FROM step WHERE trajectory = ?').pluck().get(trajectory) as number;
  const rows = db
    .prepare(
      "SELECT step, min(category) AS family FROM reasoning_tag WHERE trajectory = ? AND detector = ? AND category != 'obs' GROUP BY step",
    )
    .all(trajectory, detector) as {step: number; family: string}[];
  const out = Array.from({length: steps}, () => '·');
  for (const r of rows) if (r.step < steps) out[r.step] = r.family;
  return out.join('');
}

/** Every run that submitted a patch: its agent, instance, resolution and patch. */
export function runPatches(
  db: Db,
): {trajectory: number; agent: string; instance: string; resolved: number | null; patch: string}[] {
  return db
    .prepare(
      "SELECT t.id AS trajectory, a.name AS agent, t.instance, t.resolved, t.patch FROM trajectory t JOIN agent a ON a.id = t.agent WHERE t.patch IS NOT NULL AND trim(t.patch) != '' ORDER BY t.id",
    )
    .all() as never;
}

/** Stores a checked claim on the mark it came from (the default detector's). */
export function setClaim(db: Db, trajectory: number, step: number, spanStart: number, claim: unknown): void {
  db.prepare(
    "UPDATE reasoning_tag SET claim = ? WHERE trajectory = ? AND step = ? AND span_start = ? AND detector = 'default'",
  ).run(JSON.stringify(claim), trajectory, step, spanStart);
}

/** How many runs hold tags a detector made at another version than `version`. */
export function staleTagRuns(db: Db, detector: string, version: number): number {
  return db
    .prepare(
      'SELECT count(DISTINCT t.trajectory) FROM reasoning_tag t JOIN reasoning_run r ON r.id = t.run WHERE t.detector = ? AND r.version != ?',
    )
    .pluck()
    .get(detector, version) as number;
}
