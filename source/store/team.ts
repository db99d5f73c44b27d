/**
 * The local side of a team sync: this store's human work as rows keyed by what every store
 * agrees on (the question id, an explanation's content hash, a trajectory's content hash, the
 * person), and the team's rows merged back where they are newer.
 */
import {createHash} from 'node:crypto';
import {writeTx, type Db} from './db.js';

interface TeamLabel {
  question: string;
  explanation: string;
  annotator: string;
  letters: string[];
  rationale: string | null;
  seconds: number | null;
  created_at: string;
}
interface TeamAdjudication {
  question: string;
  explanation: string;
  adjudicator: string;
  letters: string[];
  note: string | null;
  created_at: string;
}
interface TeamFlag {
  question: string;
  author: string;
  verdict: string;
  note: string | null;
  created_at: string;
}
/** A reviewer's accept or reject of a question (edits and rebuilds change the question: they stay local). */
interface TeamReview {
  question: string;
  reviewer: string;
  action: string;
  note: string | null;
  created_at: string;
}
/** A person's correction of a step's stage (AgentLens), the run named by its content hash. */
interface TeamStage {
  trajectory: string;
  idx: number;
  annotator: string;
  stage: string;
  note: string | null;
  created_at: string;
}

export interface TeamRows {
  labels: TeamLabel[];
  adjudications: TeamAdjudication[];
  flags: TeamFlag[];
  reviews: TeamReview[];
  stages: TeamStage[];
}

export type TeamCounts = Record<keyof TeamRows, number>;

export const noCounts = (): TeamCounts => ({labels: 0, adjudications: 0, flags: 0, reviews: 0, stages: 0});

/** Two counts added, kind by kind. */
export const sumCounts = (a: TeamCounts, b: TeamCounts): TeamCounts => ({
  labels: a.labels + b.labels,
  adjudications: a.adjudications + b.adjudications,
  flags: a.flags + b.flags,
  reviews: a.reviews + b.reviews,
  stages: a.stages + b.stages,
});

/** An explanation as every store knows it: the hash of its instance, agent, kind and text (its source when the text is not in the data). */
function explanationKeys(db: Db): {byId: Map<number, string>; byKey: Map<string, number>} {
  const rows = db
    .prepare(
      'SELECT e.id, e.instance, a.name AS agent, e.kind, e.text, e.source FROM explanation e LEFT JOIN agent a ON a.id = e.agent',
    )
    .all() as {
    id: number;
    instance: string | null;
    agent: string | null;
    kind: string;
    text: string | null;
    source: string | null;
  }[];
  const byId = new Map<number, string>();
  const byKey = new Map<string, number>();
  for (const r of rows) {
    const key = createHash('sha256')
      .update(JSON.stringify([r.instance, r.agent, r.kind, r.text ?? `source:${r.source ?? ''}`]))
      .digest('hex');
    byId.set(r.id, key);
    byKey.set(key, r.id);
  }
  return {byId, byKey};
}

/** Every label, adjudication, flag, review (accept or reject) and stage correction of this store. */
export function localTeamRows(db: Db): TeamRows {
  const {byId} = explanationKeys(db);
  const keyed = <T extends {explanation: number; letters: string}>(rows: T[]) =>
    rows.flatMap(r =>
      byId.has(r.explanation)
        ? [{...r, explanation: byId.get(r.explanation)!, letters: JSON.parse(r.letters) as string[]}]
        : [],
    );
  return {
    labels: keyed(
      db
        .prepare('SELECT question, explanation, annotator, letters, rationale, seconds, created_at FROM annotation')
        .all() as (Omit<TeamLabel, 'explanation' | 'letters'> & {explanation: number; letters: string})[],
    ),
    adjudications: keyed(
      db
        .prepare('SELECT question, explanation, adjudicator, letters, note, created_at FROM adjudication')
        .all() as (Omit<TeamAdjudication, 'explanation' | 'letters'> & {explanation: number; letters: string})[],
    ),
    flags: db.prepare('SELECT question, author, verdict, note, created_at FROM question_flag').all() as TeamFlag[],
    reviews: db
      .prepare(
        `SELECT question, reviewer, action, note, created_at FROM question_review WHERE action IN ('accepted', 'rejected')`,
      )
      .all() as TeamReview[],
    stages: db
      .prepare(
        `SELECT t.content_hash AS trajectory, s.idx, s.annotator, s.stage, s.note, s.created_at
         FROM stage_annotation s JOIN trajectory t ON t.id = s.trajectory`,
      )
      .all() as TeamStage[],
  };
}

/**
 * The team's rows into this store where they are newer (labels marked `origin` team; a review
 * is added once). Rows about a question, explanation, run or step this store does not have are
 * counted, not stored. One transaction.
 */
export function mergeTeamRows(db: Db, rows: TeamRows): {received: TeamCounts; notHere: number} {
  const {byKey} = explanationKeys(db);
  const received = noCounts();
  let notHere = 0;
  writeTx(db, () => {
    const questions = new Set(db.prepare('SELECT id FROM question').pluck().all() as string[]);
    const runs = new Map(
      (db.prepare('SELECT content_hash, id FROM trajectory').all() as {content_hash: string; id: number}[]).map(r => [
        r.content_hash,
        r.id,
      ]),
    );
    const label = db.prepare(
      `INSERT INTO annotation (question, explanation, annotator, letters, rationale, seconds, origin, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 'team', ?)
       ON CONFLICT (question, explanation, annotator) DO UPDATE SET letters = excluded.letters, rationale = excluded.rationale,
         seconds = excluded.seconds, origin = excluded.origin, created_at = excluded.created_at
       WHERE excluded.created_at > annotation.created_at`,
    );
    for (const r of rows.labels) {
      const e = byKey.get(r.explanation);
      if (e === undefined || !questions.has(r.question)) notHere += 1;
      else
        received.labels += label.run(
          r.question,
          e,
          r.annotator,
          JSON.stringify(r.letters),
          r.rationale,
          r.seconds,
          r.created_at,
        ).changes;
    }
    const adjudication = db.prepare(
      `INSERT INTO adjudication (question, explanation, adjudicator, letters, note, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (question, explanation) DO UPDATE SET adjudicator = excluded.adjudicator, letters = excluded.letters,
         note = excluded.note, created_at = excluded.created_at
       WHERE excluded.created_at > adjudication.created_at`,
    );
    for (const r of rows.adjudications) {
      const e = byKey.get(r.explanation);
      if (e === undefined || !questions.has(r.question)) notHere += 1;
      else
        received.adjudications += adjudication.run(
          r.question,
          e,
          r.adjudicator,
          JSON.stringify(r.letters),
          r.note,
          r.created_at,
        ).changes;
    }
    const flag = db.prepare(
      `INSERT INTO question_flag (question, author, verdict, note, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (question, author) DO UPDATE SET verdict = excluded.verdict, note = excluded.note, created_at = excluded.created_at
       WHERE excluded.created_at > question_flag.created_at`,
    );
    for (const r of rows.flags) {
      if (!questions.has(r.question)) notHere += 1;
      else received.flags += flag.run(r.question, r.author, r.verdict, r.note, r.created_at).changes;
    }
    const review = db.prepare(
      `INSERT INTO question_review (question, reviewer, action, note, created_at)
       SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (
         SELECT 1 FROM question_review WHERE question = ? AND reviewer = ? AND created_at = ?)`,
    );
    for (const r of rows.reviews) {
      if (!questions.has(r.question)) notHere += 1;
      else
        received.reviews += review.run(
          r.question,
          r.reviewer,
          r.action,
          r.note,
          r.created_at,
          r.question,
          r.reviewer,
          r.created_at,
        ).changes;
    }
    const step = db.prepare('SELECT 1 FROM step WHERE trajectory = ? AND idx = ?');
    const stage = db.prepare(
      `INSERT INTO stage_annotation (trajectory, idx, annotator, stage, note, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (trajectory, idx, annotator) DO UPDATE SET stage = excluded.stage, note = excluded.note, created_at = excluded.created_at
       WHERE excluded.created_at > stage_annotation.created_at`,
    );
    for (const r of rows.stages) {
      const run = runs.get(r.trajectory);
      if (run === undefined || !step.get(run, r.idx)) notHere += 1;
      else received.stages += stage.run(run, r.idx, r.annotator, r.stage, r.note, r.created_at).changes;
    }
  });
  return {received, notHere};
}
