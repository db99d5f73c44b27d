/**
 * Batches of scoring calls sent to an OpenAI-compatible Batch API (`score --batch`): each stored
 * with its requests once the endpoint has accepted it, until its answers are stored.
 */
import type {Db} from './db.js';

export interface BatchRequestRow {
  customId: string;
  question: string;
  explanation: number;
  sample: number;
  promptHash: string;
  permutation: string[];
  seed: number;
}

export interface ScoreBatchRow {
  id: string;
  model: string;
  endpoint: string | null;
  inputFile: string;
  requests: number;
  status: string;
  completed: number;
  failed: number;
  outputFile: string | null;
  errorFile: string | null;
  error: string | null;
  createdAt: string;
  ingestedAt: string | null;
}

const SELECT = `SELECT id, model, endpoint, input_file AS inputFile, requests, status, completed, failed,
  output_file AS outputFile, error_file AS errorFile, error, created_at AS createdAt, ingested_at AS ingestedAt
  FROM score_batch`;

/** A batch the endpoint accepted, with its requests (one transaction). */
export function insertBatch(
  db: Db,
  b: {id: string; model: string; endpoint: string | null; inputFile: string; status: string},
  requests: BatchRequestRow[],
): void {
  db.prepare(
    'INSERT INTO score_batch (id, model, endpoint, input_file, requests, status) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(b.id, b.model, b.endpoint, b.inputFile, requests.length, b.status);
  const add = db.prepare(
    `INSERT INTO score_batch_request (batch, custom_id, question, explanation, sample, prompt_hash, permutation, seed)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const r of requests)
    add.run(b.id, r.customId, r.question, r.explanation, r.sample, r.promptHash, JSON.stringify(r.permutation), r.seed);
}

/** What the endpoint said of a batch when last asked. */
export function updateBatch(
  db: Db,
  id: string,
  s: {
    status: string;
    completed: number;
    failed: number;
    outputFile: string | null;
    errorFile: string | null;
    error: string | null;
  },
): void {
  db.prepare(
    'UPDATE score_batch SET status = ?, completed = ?, failed = ?, output_file = ?, error_file = ?, error = ? WHERE id = ?',
  ).run(s.status, s.completed, s.failed, s.outputFile, s.errorFile, s.error, id);
}

export function markIngested(db: Db, id: string): void {
  db.prepare(`UPDATE score_batch SET ingested_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?`).run(id);
}

/** Batches whose answers are not stored yet, oldest first; for one model when given. */
export function pendingBatches(db: Db, model?: string): ScoreBatchRow[] {
  return db
    .prepare(`${SELECT} WHERE ingested_at IS NULL ${model ? 'AND model = ?' : ''} ORDER BY created_at, id`)
    .all(...(model ? [model] : [])) as ScoreBatchRow[];
}

export function listBatches(db: Db): ScoreBatchRow[] {
  return db.prepare(`${SELECT} ORDER BY created_at, id`).all() as ScoreBatchRow[];
}

export function batchRequests(db: Db, batch: string): Map<string, BatchRequestRow> {
  const rows = db
    .prepare(
      `SELECT custom_id AS customId, question, explanation, sample, prompt_hash AS promptHash, permutation, seed
       FROM score_batch_request WHERE batch = ?`,
    )
    .all(batch) as (Omit<BatchRequestRow, 'permutation'> & {permutation: string})[];
  return new Map(rows.map(r => [r.customId, {...r, permutation: JSON.parse(r.permutation) as string[]}]));
}
