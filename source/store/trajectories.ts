import type {Step, Trajectory} from '../core/trajectory/model.js';
import type {Db} from './db.js';

interface NewTrajectory {
  header: Omit<Trajectory, 'steps'>;
  agentId: number;
  sourcePath: string;
  sourceLocator: string | null;
  contentHash: string;
  resolvedSource: string | null;
}

export function hasContentHash(db: Db, hash: string): number | null {
  const row = db.prepare('SELECT id FROM trajectory WHERE content_hash = ?').get(hash) as {id: number} | undefined;
  return row?.id ?? null;
}

export function insertTrajectory(db: Db, t: NewTrajectory): number {
  const h = t.header;
  const result = db
    .prepare(
      `INSERT INTO trajectory (instance, agent, source_format, source_path, source_locator, content_hash, resolved, resolved_source,
                               patch, exit_status, cost, tokens_in, tokens_out, meta)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      h.instance,
      t.agentId,
      h.format,
      t.sourcePath,
      t.sourceLocator,
      t.contentHash,
      h.resolved === null ? null : h.resolved ? 1 : 0,
      t.resolvedSource,
      h.patch,
      h.exitStatus,
      h.cost,
      h.tokensIn,
      h.tokensOut,
      JSON.stringify(h.meta),
    );
  return Number(result.lastInsertRowid);
}

/** Returns a function that appends steps to one trajectory with a single prepared statement. */
/**
 * Returns a function that appends steps to one trajectory with a single prepared statement.
 * `label` (the intent stage and rule JSON of each step, in order) goes into the same row, so a
 * step is written once.
 */
export function stepWriter(
  db: Db,
  trajectoryId: number,
  label?: (step: Step) => {stage: string; rule: string},
  tag?: (idx: number, thought: string | null) => void,
): (step: Step) => number {
  const insert = db.prepare(
    `INSERT INTO step (trajectory, idx, thought, action_tool, action_args, action_text, observation, intent_stage, labeller_rule) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  let idx = 0;
  return step => {
    const l = label?.(step);
    insert.run(
      trajectoryId,
      idx,
      step.thought,
      step.tool,
      step.args === null ? null : JSON.stringify(step.args),
      step.actionText,
      step.observation,
      l?.stage ?? null,
      l?.rule ?? null,
    );
    tag?.(idx, step.thought);
    return ++idx;
  };
}

/** Writes what is only known at the end of a streamed trajectory. */
export function finishTrajectory(
  db: Db,
  id: number,
  fields: {
    nSteps: number;
    explanation: string | null;
    header: Omit<Trajectory, 'steps'>;
    agentId: number;
    resolvedSource: string | null;
  },
): void {
  const h = fields.header;
  db.prepare(
    `UPDATE trajectory SET n_steps = ?, patch = ?, exit_status = ?, resolved = ?, resolved_source = ?, cost = ?, tokens_in = ?, tokens_out = ?,
       agent = ?, instance = ?, meta = ? WHERE id = ?`,
  ).run(
    fields.nSteps,
    h.patch,
    h.exitStatus,
    h.resolved === null ? null : h.resolved ? 1 : 0,
    fields.resolvedSource,
    h.cost,
    h.tokensIn,
    h.tokensOut,
    fields.agentId,
    h.instance,
    JSON.stringify(h.meta),
    id,
  );
  db.prepare(
    `INSERT INTO explanation (trajectory, instance, agent, kind, text, n_chars, source) VALUES (?, ?, ?, 'original', ?, ?, 'final tool call')`,
  ).run(
    id,
    h.instance,
    fields.agentId,
    fields.explanation,
    fields.explanation === null ? 0 : [...fields.explanation].length,
  );
}

import type {SortKey} from '../core/trajectory/list-filter.js';
export {SORT_KEYS, type SortKey} from '../core/trajectory/list-filter.js';

export interface TrajectoryQuery {
  agent?: string;
  instance?: string;
  resolved?: boolean | null;
  /** the process-lens tier of the last build (Lucky, Solid, Ideal); null: scored without a tier */
  tier?: string | null;
  /** runs with (or without) code reasoning in a thought, by the default detector */
  reasoning?: boolean;
  /** runs with a checked claim of this verdict */
  claim?: 'confirmed' | 'contradicted' | 'unverifiable';
  /** Free text matched against instance, agent and model (the explorer's `/` filter). */
  text?: string;
  sort?: SortKey;
  descending?: boolean;
  offset?: number;
  limit?: number;
}

export interface TrajectorySummary {
  id: number;
  instance: string;
  agent: string;
  model: string;
  format: string;
  resolved: boolean | null;
  exitStatus: string | null;
  steps: number;
  explanationChars: number;
  patchChars: number;
  /** the run's process quality and tier from the last lens build (null: not scored) */
  lens: {quality: number; tier: string | null} | null;
}

const SORT_SQL: Record<SortKey, string> = {
  id: 't.id',
  instance: 't.instance',
  agent: 'a.name',
  resolved: 't.resolved',
  steps: 't.n_steps',
  explanation: 'coalesce(e.n_chars, 0)',
  // unscored runs sort before every scored one
  lens: 'coalesce((SELECT ls.quality FROM lens_score ls WHERE ls.trajectory = t.id), -1)',
};

function where(query: TrajectoryQuery): {sql: string; params: unknown[]} {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (query.agent !== undefined) {
    clauses.push("(a.name = ? OR a.model = ? OR (a.name || ' ' || a.model) = ?)");
    params.push(query.agent, query.agent, query.agent);
  }
  if (query.instance !== undefined) {
    clauses.push('t.instance = ?');
    params.push(query.instance);
  }
  if (query.resolved !== undefined) {
    clauses.push(query.resolved === null ? 't.resolved IS NULL' : 't.resolved = ?');
    if (query.resolved !== null) params.push(query.resolved ? 1 : 0);
  }
  if (query.tier !== undefined) {
    clauses.push(
      query.tier === null
        ? 't.id IN (SELECT trajectory FROM lens_score WHERE tier IS NULL)'
        : 't.id IN (SELECT trajectory FROM lens_score WHERE tier = ?)',
    );
    if (query.tier !== null) params.push(query.tier);
  }
  if (query.reasoning !== undefined)
    clauses.push(
      `t.id ${query.reasoning ? '' : 'NOT '}IN (SELECT trajectory FROM reasoning_tag WHERE detector = 'default' AND category != 'obs')`,
    );
  if (query.claim !== undefined) {
    clauses.push(
      "t.id IN (SELECT trajectory FROM reasoning_tag WHERE detector = 'default' AND json_extract(claim, '$.verdict') = ?)",
    );
    params.push(query.claim);
  }
  if (query.text) {
    clauses.push("(t.instance LIKE ? ESCAPE '\\' OR a.name LIKE ? ESCAPE '\\' OR a.model LIKE ? ESCAPE '\\')");
    const like = `%${query.text.replace(/[\\%_]/g, match => `\\${match}`)}%`;
    params.push(like, like, like);
  }
  return {sql: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params};
}

const FROM = `FROM trajectory t JOIN agent a ON a.id = t.agent
              LEFT JOIN explanation e ON e.trajectory = t.id AND e.kind = 'original'`;

export function countTrajectories(db: Db, query: TrajectoryQuery = {}): number {
  const w = where(query);
  return (db.prepare(`SELECT count(*) AS n ${FROM} ${w.sql}`).get(...w.params) as {n: number}).n;
}

/**
 * One page of the list. The page's ids come first from the indexes alone (ORDER BY … LIMIT
 * never touches patch or meta), then only those rows are read in full.
 */
export function listTrajectories(db: Db, query: TrajectoryQuery = {}): TrajectorySummary[] {
  const w = where(query);
  const order = `${SORT_SQL[query.sort ?? 'id']} ${query.descending ? 'DESC' : 'ASC'}, t.id ${query.descending ? 'DESC' : 'ASC'}`;
  const ids = db
    .prepare(`SELECT t.id ${FROM} ${w.sql} ORDER BY ${order} LIMIT ? OFFSET ?`)
    .pluck()
    .all(...w.params, query.limit ?? -1, query.offset ?? 0) as number[];
  if (ids.length === 0) return [];
  const rows = db
    .prepare(
      `SELECT t.id, t.instance, a.name AS agent, a.model, t.source_format AS format, t.resolved, t.exit_status AS exitStatus,
              t.n_steps AS steps, coalesce(e.n_chars, 0) AS explanationChars, coalesce(length(t.patch), 0) AS patchChars,
              ls.quality AS lensQuality, ls.tier AS lensTier
       ${FROM} LEFT JOIN lens_score ls ON ls.trajectory = t.id WHERE t.id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(ids)) as (Omit<TrajectorySummary, 'resolved' | 'lens'> & {
    resolved: number | null;
    lensQuality: number | null;
    lensTier: string | null;
  })[];
  const byId = new Map(
    rows.map(({lensQuality, lensTier, ...row}) => [
      row.id,
      {
        ...row,
        resolved: row.resolved === null ? null : row.resolved === 1,
        lens: lensQuality === null ? null : {quality: lensQuality, tier: lensTier},
      },
    ]),
  );
  return ids.map(id => byId.get(id)!);
}

export interface TrajectoryDetail extends TrajectorySummary {
  sourcePath: string;
  sourceLocator: string | null;
  contentHash: string;
  resolvedSource: string | null;
  patch: string | null;
  explanation: string | null;
  cost: number | null;
  tokensIn: number | null;
  tokensOut: number | null;
  meta: Record<string, unknown>;
  importedAt: string;
}

/** `maxChars` cuts the patch and explanation (the explorer's view; patchChars and
 * explanationChars keep the full lengths). */
export function getTrajectory(db: Db, id: number, maxChars = FULL): TrajectoryDetail | null {
  const row = db
    .prepare(
      `SELECT t.id, t.instance, a.name AS agent, a.model, t.source_format AS format, t.resolved, t.exit_status AS exitStatus,
              t.n_steps AS steps, coalesce(e.n_chars, 0) AS explanationChars, coalesce(length(t.patch), 0) AS patchChars,
              t.source_path AS sourcePath, t.source_locator AS sourceLocator, t.content_hash AS contentHash,
              t.resolved_source AS resolvedSource, substr(t.patch, 1, @max) AS patch, substr(e.text, 1, @max) AS explanation, t.cost,
              t.tokens_in AS tokensIn, t.tokens_out AS tokensOut, t.meta, t.imported_at AS importedAt,
              ${hasNul('t.patch')} OR ${hasNul('e.text')} AS nul
       ${FROM} WHERE t.id = @id`,
    )
    .get({id, max: maxChars}) as
    | (Omit<TrajectoryDetail, 'resolved' | 'meta'> & {resolved: number | null; meta: string | null; nul: number})
    | undefined;
  if (!row) return null;
  const {nul, ...rest} = row;
  if (nul) {
    // SQLite's text functions stop at a NUL byte: the texts are cut here instead
    const whole = db.prepare(`SELECT t.patch, e.text ${FROM} WHERE t.id = ?`).get(id) as {
      patch: string | null;
      text: string | null;
    };
    [rest.patch, rest.patchChars] = cutChars(whole.patch, maxChars);
    [rest.explanation] = cutChars(whole.text, maxChars);
  }
  return {
    ...rest,
    resolved: rest.resolved === null ? null : rest.resolved === 1,
    meta: rest.meta ? JSON.parse(rest.meta) : {},
  };
}

export interface StepRow {
  idx: number;
  thought: string | null;
  tool: string | null;
  args: Record<string, unknown> | null;
  actionText: string | null;
  observation: string | null;
  intentStage: string | null;
  labellerRule: string | null;
  /** people's corrections of the stage, "ann: V, bo: I" (latest first), or null */
  corrections: string | null;
  /** the full lengths (the texts above may be cut to `maxChars`) */
  thoughtChars: number;
  actionChars: number;
  observationChars: number;
}

/** No cut: longer than any text SQLite stores. */
const FULL = 2 ** 31 - 1;

/**
 * SQLite stores a text with a NUL byte whole, but its text functions (length, substr) stop at the
 * NUL: a row whose text holds one is read whole and cut in JavaScript. Blob functions see every
 * byte, so this finds them.
 */
const hasNul = (column: string) => `coalesce(instr(CAST(${column} AS BLOB), x'00') > 0, 0)`;

/** A text cut to `max` code points (as SQLite's substr counts), and its whole length in them. */
function cutChars(text: string | null, max: number): [string | null, number] {
  if (text === null) return [null, 0];
  const points = [...text];
  return [points.length > max ? points.slice(0, max).join('') : text, points.length];
}

/** Steps in order; `maxChars` cuts thought, action and observation (the explorer shows a step
 * of any size by reading a window of it; the *Chars fields keep the full lengths). */
export function getSteps(db: Db, trajectoryId: number, offset = 0, limit = -1, maxChars = FULL): StepRow[] {
  const rows = db
    .prepare(
      `SELECT idx, substr(thought, 1, @max) AS thought, action_tool AS tool, CASE WHEN length(action_args) <= @max THEN action_args END AS args,
              substr(action_text, 1, @max) AS actionText, substr(observation, 1, @max) AS observation,
              coalesce(length(thought), 0) AS thoughtChars, coalesce(length(action_text), 0) AS actionChars, coalesce(length(observation), 0) AS observationChars,
              intent_stage AS intentStage, labeller_rule AS labellerRule,
              (SELECT group_concat(annotator || ': ' || stage, ', ') FROM (SELECT annotator, stage FROM stage_annotation sa
                 WHERE sa.trajectory = step.trajectory AND sa.idx = step.idx ORDER BY created_at DESC)) AS corrections,
              ${hasNul('thought')} OR ${hasNul('action_text')} OR ${hasNul('observation')} OR ${hasNul('action_args')} AS nul
       FROM step WHERE trajectory = @trajectory AND idx >= @offset ORDER BY idx LIMIT @limit`,
    )
    .all({trajectory: trajectoryId, offset, limit, max: maxChars}) as (Omit<StepRow, 'args'> & {
    args: string | null;
    nul: number;
  })[];
  const whole = db.prepare(
    'SELECT thought, action_text AS actionText, observation, action_args AS args FROM step WHERE trajectory = ? AND idx = ?',
  );
  return rows.map(({nul, ...row}) => {
    if (nul) {
      const w = whole.get(trajectoryId, row.idx) as {
        thought: string | null;
        actionText: string | null;
        observation: string | null;
        args: string | null;
      };
      [row.thought, row.thoughtChars] = cutChars(w.thought, maxChars);
      [row.actionText, row.actionChars] = cutChars(w.actionText, maxChars);
      [row.observation, row.observationChars] = cutChars(w.observation, maxChars);
      row.args = w.args !== null && [...w.args].length <= maxChars ? w.args : null;
    }
    return {...row, args: row.args === null ? null : JSON.parse(row.args)};
  });
}

/** One line per step for timelines: no observation bodies, only their length. */
export interface StepHead {
  idx: number;
  tool: string | null;
  action: string;
  thoughtChars: number;
  observationChars: number;
  /** AgentLens intent stage (E/I/V/O) and the rule that fired */
  stage: string | null;
  rule: string | null;
  /** a person's correction of the stage (the latest), when there is one */
  person: string | null;
  /** the code-reasoning families of the step's thought (A–E, in order; '' none) */
  reasoning: string;
}

/** The run's intent stages in step order, e.g. "EEEIIVO" ('·' where unlabelled); a person's correction wins over the labeller. */
export function getStageString(db: Db, trajectoryId: number): string {
  return (
    db
      .prepare(
        `SELECT coalesce((SELECT sa.stage FROM stage_annotation sa WHERE sa.trajectory = step.trajectory AND sa.idx = step.idx ORDER BY sa.created_at DESC LIMIT 1), intent_stage, '·')
           FROM step WHERE trajectory = ? ORDER BY idx`,
      )
      .pluck()
      .all(trajectoryId) as string[]
  ).join('');
}

export function getStepHeads(db: Db, trajectoryId: number, offset: number, limit: number): StepHead[] {
  const heads = db
    .prepare(
      `SELECT idx, action_tool AS tool, substr(coalesce(action_text, ''), 1, 400) AS action,
              coalesce(length(thought), 0) AS thoughtChars, coalesce(length(observation), 0) AS observationChars,
              intent_stage AS stage, json_extract(labeller_rule, '$.rule') AS rule,
              (SELECT sa.stage FROM stage_annotation sa WHERE sa.trajectory = step.trajectory AND sa.idx = step.idx ORDER BY sa.created_at DESC LIMIT 1) AS person,
              coalesce((SELECT group_concat(category, '') FROM (SELECT DISTINCT category FROM reasoning_tag r WHERE r.trajectory = step.trajectory AND r.step = step.idx AND r.detector = 'default' AND r.category != 'obs' ORDER BY category)), '') AS reasoning,
              ${hasNul('thought')} OR ${hasNul('action_text')} OR ${hasNul('observation')} AS nul
       FROM step WHERE trajectory = ? AND idx >= ? ORDER BY idx LIMIT ?`,
    )
    .all(trajectoryId, offset, limit) as (StepHead & {nul: number})[];
  const whole = db.prepare(
    'SELECT thought, action_text AS actionText, observation FROM step WHERE trajectory = ? AND idx = ?',
  );
  return heads.map(({nul, ...head}) => {
    if (nul) {
      const w = whole.get(trajectoryId, head.idx) as {
        thought: string | null;
        actionText: string | null;
        observation: string | null;
      };
      head.action = cutChars(w.actionText ?? '', 400)[0]!;
      head.thoughtChars = cutChars(w.thought, 0)[1];
      head.observationChars = cutChars(w.observation, 0)[1];
    }
    return head;
  });
}

/** A reader of one step's action text (the command or edit an agent ran), by trajectory and index. */
export function actionTextReader(db: Db): (trajectory: number, idx: number) => string | null {
  const q = db.prepare('SELECT action_text FROM step WHERE trajectory = ? AND idx = ?').pluck();
  return (trajectory, idx) => (q.get(trajectory, idx) as string | null | undefined) ?? null;
}

/** A reader of the stage the labeller gave one step. */
export function labelledStage(db: Db, trajectory: number, idx: number): string | null {
  return (
    (db.prepare('SELECT intent_stage FROM step WHERE trajectory = ? AND idx = ?').pluck().get(trajectory, idx) as
      | string
      | null
      | undefined) ?? null
  );
}

/** Steps per labelled stage over the whole store (null: not labelled). */
export function stageCounts(db: Db): {stage: string | null; n: number}[] {
  return db
    .prepare('SELECT intent_stage AS stage, count(*) AS n FROM step GROUP BY intent_stage ORDER BY intent_stage')
    .all() as {stage: string | null; n: number}[];
}

/** An agent's runs with a known resolved status: instance and whether it was resolved. */
export function resolvedRunsOf(db: Db, agent: string): {instance: string; resolved: boolean}[] {
  return (
    db
      .prepare(
        `SELECT t.instance, t.resolved FROM trajectory t JOIN agent a ON a.id = t.agent WHERE a.name = ? AND t.resolved IS NOT NULL`,
      )
      .all(agent) as {instance: string; resolved: number}[]
  ).map(r => ({instance: r.instance, resolved: r.resolved === 1}));
}

/** Every run with a known resolved status, by id. */
export function resolvedById(db: Db): Map<number, boolean> {
  return new Map(
    (
      db.prepare('SELECT id, resolved FROM trajectory WHERE resolved IS NOT NULL').all() as {
        id: number;
        resolved: number;
      }[]
    ).map(r => [r.id, r.resolved === 1]),
  );
}

/** Sets a trajectory's content hash and where in its file it came from (known once it is read). */
export function setContentHash(db: Db, id: number, hash: string, locator: string | null): void {
  db.prepare('UPDATE trajectory SET content_hash = ?, source_locator = ? WHERE id = ?').run(hash, locator, id);
}

/** The newest prediction (a run imported from a predictions file) of a model for an instance. */
export function findPrediction(db: Db, instance: string, model: string): number | null {
  const id = db
    .prepare(
      `SELECT t.id FROM trajectory t JOIN agent a ON a.id = t.agent WHERE t.instance = ? AND t.source_format = 'prediction' AND (a.name = ? OR a.model = ?) ORDER BY t.id DESC LIMIT 1`,
    )
    .pluck()
    .get(instance, model, model) as number | undefined;
  return id ?? null;
}
