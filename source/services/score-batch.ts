/**
 * `deltalens score --batch`: the calls `score` would make, sent as batches to an
 * OpenAI-compatible Batch API (half the price of online calls at OpenAI, no rate limits to
 * meet), then collected.
 *
 * - A batch is stored with every request it holds the moment the endpoint accepts it; a later
 *   run (after Ctrl+C, a crash, the next day) first collects every batch of the model not
 *   collected yet — nothing is paid for twice.
 * - Answers go through the same parsing and verdicts as online calls (`answerRow`), keyed the
 *   same way: collecting a batch twice stores nothing twice, and an answer already stored
 *   online is not asked again.
 * - A request that failed (or that a batch which expired never ran) is not stored: the next
 *   run asks it again, in a new batch.
 */
import {writeTx, type Db} from '../store/db.js';
import {insertAnswer, listQuestions} from '../store/questions.js';
import {
  batchRequests,
  insertBatch,
  markIngested,
  pendingBatches,
  updateBatch,
  type BatchRequestRow,
  type ScoreBatchRow,
} from '../store/score-batches.js';
import {capAnswer, type BatchEndpoint, type BatchState} from './qa-models.js';
import {answerRow, modelName, planScoring, type ScoreOptions, type ScoreResult, type ScoreTask} from './scoring.js';

/** OpenAI's limits for one batch: 50,000 requests, a 200 MB input file (some room left). */
const BATCH_MAX_REQUESTS = 50_000;
const BATCH_MAX_BYTES = 190 * 1024 * 1024;
const TERMINAL = new Set(['completed', 'failed', 'expired', 'cancelled']);

export interface BatchProgress {
  /** what is happening: collecting an earlier batch, sending one, waiting for one, storing its answers */
  phase: 'collecting' | 'submitting' | 'waiting' | 'storing';
  batch: string | null;
  status: string | null;
  completed: number;
  failed: number;
  total: number;
}

interface BatchOptions extends Omit<ScoreOptions, 'concurrency' | 'onProgress'> {
  /** seconds between two looks at a batch (default 30) */
  pollSeconds?: number;
  maxRequests?: number;
  maxBytes?: number;
  onProgress?: (p: BatchProgress) => void;
}

interface BatchSummary {
  id: string;
  status: string;
  requests: number;
  /** answers stored from it (by this run) */
  stored: number;
  failed: number;
}

interface BatchScoreResult
  extends Pick<ScoreResult, 'model' | 'withoutText' | 'withoutQuestions' | 'explanations' | 'errors'> {
  /** answers stored before this run */
  cached: number;
  /** requests sent in new batches by this run */
  submitted: number;
  stored: number;
  failed: number;
  unparseable: number;
  batches: BatchSummary[];
  interrupted: boolean;
  /** batches still running at the endpoint (collected by the next run) */
  pending: string[];
}

class BatchError extends Error {}

/** Waits `ms`, or less when the signal fires. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done);
  });
}

/** The requests of one batch file: at most `maxRequests` lines and `maxBytes` bytes each. */
function chunks(lines: {line: string; request: BatchRequestRow}[], maxRequests: number, maxBytes: number) {
  const out: {jsonl: string; requests: BatchRequestRow[]}[] = [];
  let current: string[] = [];
  let requests: BatchRequestRow[] = [];
  let bytes = 0;
  for (const {line, request} of lines) {
    const size = Buffer.byteLength(line) + 1;
    if (current.length && (current.length >= maxRequests || bytes + size > maxBytes)) {
      out.push({jsonl: `${current.join('\n')}\n`, requests});
      current = [];
      requests = [];
      bytes = 0;
    }
    current.push(line);
    requests.push(request);
    bytes += size;
  }
  if (current.length) out.push({jsonl: `${current.join('\n')}\n`, requests});
  return out;
}

interface Counts {
  stored: number;
  failed: number;
  unparseable: number;
  errors: string[];
}

/**
 * A finished batch's answers stored (its output file), its failures counted (its error file and
 * lines that are not a 200 with an answer). Storing is idempotent: run again, it adds nothing.
 */
async function ingest(
  db: Db,
  api: BatchEndpoint,
  batch: ScoreBatchRow,
  state: BatchState,
  counts: Counts,
  signal?: AbortSignal,
): Promise<{stored: number; failed: number}> {
  const requests = batchRequests(db, batch.id);
  const questions = new Map(listQuestions(db).map(q => [q.id, q]));
  const rows: ReturnType<typeof answerRow>[] = [];
  let failed = 0;
  const fail = (what: string) => {
    failed += 1;
    if (counts.errors.length < 20) counts.errors.push(`batch ${batch.id}: ${what}`);
  };
  for (const file of [state.outputFile, state.errorFile]) {
    if (!file) continue;
    const text = await api.content(file, signal);
    let lineNo = 0;
    for (const raw of text.split('\n')) {
      lineNo += 1;
      if (!raw.trim()) continue;
      let line: {
        custom_id?: unknown;
        response?: {status_code?: number; body?: Record<string, unknown>} | null;
        error?: {message?: string} | null;
      };
      try {
        line = JSON.parse(raw) as typeof line;
      } catch {
        fail(`line ${lineNo} of file ${file} is not JSON`);
        continue;
      }
      const request = typeof line.custom_id === 'string' ? requests.get(line.custom_id) : undefined;
      if (!request) {
        fail(`line ${lineNo} of file ${file}: custom_id ${JSON.stringify(line.custom_id)} is not one of its requests`);
        continue;
      }
      const what = `${request.question} × explanation ${request.explanation} sample ${request.sample}`;
      const q = questions.get(request.question);
      if (!q) {
        fail(`${what}: the question is no longer in the store`);
        continue;
      }
      const status = line.response?.status_code;
      const body = line.response?.body as
        | {choices?: {message?: {content?: unknown}}[]; usage?: {total_tokens?: number}; error?: {message?: string}}
        | undefined;
      const content = body?.choices?.[0]?.message?.content;
      if (status !== 200 || typeof content !== 'string') {
        const why = line.error?.message ?? body?.error?.message ?? (status ? `status ${status}` : 'no response');
        fail(`${what}: ${why}`);
        continue;
      }
      rows.push(
        answerRow(
          {
            q,
            explanation: request.explanation,
            sample: request.sample,
            hash: request.promptHash,
            seed: request.seed,
            order: request.permutation,
          },
          batch.model,
          {text: capAnswer(content), latencyMs: null, tokens: body?.usage?.total_tokens ?? null},
        ),
      );
    }
  }
  // requests with no line in either file (a batch that expired or was cancelled midway)
  let stored = 0;
  writeTx(db, () => {
    for (const row of rows) {
      if (insertAnswer(db, row)) {
        stored += 1;
        if (!row.letters) counts.unparseable += 1;
      }
    }
    markIngested(db, batch.id);
  });
  counts.stored += stored;
  counts.failed += failed;
  return {stored, failed};
}

/**
 * Score through the model's Batch API: first collect every batch of this model not collected
 * yet, then send what is still unanswered, wait for it and collect it. Ctrl+C (the signal) stops
 * the waiting, never a batch: it runs on at the endpoint and the next run collects it.
 */
export async function scoreBatch(db: Db, o: BatchOptions): Promise<BatchScoreResult> {
  const api = o.model.batch;
  if (!api) throw new BatchError(`${o.model.name} has no Batch API (the offline baseline is scored with plain score)`);
  try {
    return await scoreThrough(db, api, o);
  } catch (error) {
    if (error instanceof BatchError) throw error;
    // the endpoint failed past its retries: one line; what was sent is stored
    throw new BatchError(
      `the Batch API at ${api.endpoint ?? 'OpenAI'}: ${(error as Error).message.split('\n')[0]}; every batch it accepted is stored, and the next score --batch of this model collects it`,
    );
  }
}

async function scoreThrough(db: Db, api: BatchEndpoint, o: BatchOptions): Promise<BatchScoreResult> {
  const name = modelName(o.model, Boolean(o.choicesOnly));
  const pollMs = Math.max(0, (o.pollSeconds ?? 30) * 1000);
  const counts: Counts = {stored: 0, failed: 0, unparseable: 0, errors: []};
  const summaries: BatchSummary[] = [];
  const report = (p: BatchProgress) => o.onProgress?.(p);

  /** Asks the endpoint until the batch ends (then stores its answers) or the signal fires. */
  const settle = async (batch: ScoreBatchRow, phase: BatchProgress['phase']): Promise<boolean> => {
    for (;;) {
      let state: BatchState;
      try {
        state = await api.retrieve(batch.id, o.signal);
      } catch (error) {
        if (o.signal?.aborted) return false; // stopped while asking: the batch stays pending
        throw error;
      }
      writeTx(db, () => updateBatch(db, batch.id, state));
      report({
        phase,
        batch: batch.id,
        status: state.status,
        completed: state.completed,
        failed: state.failed,
        total: state.total || batch.requests,
      });
      if (TERMINAL.has(state.status)) {
        report({
          phase: 'storing',
          batch: batch.id,
          status: state.status,
          completed: state.completed,
          failed: state.failed,
          total: batch.requests,
        });
        let got: {stored: number; failed: number};
        try {
          got = await ingest(db, api, batch, state, counts, o.signal);
        } catch (error) {
          if (o.signal?.aborted) return false; // stopped while reading its files: nothing stored, collected next time
          throw error;
        }
        if (state.status !== 'completed' && counts.errors.length < 20)
          counts.errors.push(
            `batch ${batch.id} ended ${state.status}${state.error ? ` (${state.error})` : ''}: ${batch.requests - got.stored - got.failed} of its requests have no answer and are asked again by the next run`,
          );
        summaries.push({id: batch.id, status: state.status, requests: batch.requests, ...got});
        return true;
      }
      if (o.signal?.aborted) return false;
      await sleep(pollMs, o.signal);
      if (o.signal?.aborted) return false;
    }
  };
  /** The run's account: what was planned (nothing yet when stopped while collecting), sent, stored. */
  const summary = (
    plan: {cached: number} & Partial<ReturnType<typeof planScoring>>,
    submitted: number,
    interrupted: boolean,
  ): BatchScoreResult => ({
    model: name,
    cached: plan.cached,
    submitted,
    stored: counts.stored,
    failed: counts.failed,
    unparseable: counts.unparseable,
    batches: summaries,
    interrupted,
    pending: pendingBatches(db, name).map(b => b.id),
    errors: counts.errors,
    withoutText: plan.withoutText ?? 0,
    withoutQuestions: plan.withoutQuestions ?? [],
    explanations: plan.explanations ?? 0,
  });

  // what an earlier run sent and did not collect
  for (const batch of pendingBatches(db, name)) {
    if (!(await settle(batch, 'collecting'))) return summary({cached: 0}, 0, true);
  }
  const plan = planScoring(db, o);
  const lines = plan.tasks.map((t: ScoreTask, i) => {
    const customId = `r${i}`;
    return {
      line: JSON.stringify({
        custom_id: customId,
        method: 'POST',
        url: '/v1/chat/completions',
        body: api.body(t.prompt.text),
      }),
      request: {
        customId,
        question: t.q.id,
        explanation: t.e.id,
        sample: t.sample,
        promptHash: t.hash,
        permutation: t.prompt.order,
        seed: t.seed,
      },
    };
  });
  let submitted = 0;
  for (const chunk of chunks(lines, o.maxRequests ?? BATCH_MAX_REQUESTS, o.maxBytes ?? BATCH_MAX_BYTES)) {
    if (o.signal?.aborted) return summary(plan, submitted, true);
    report({phase: 'submitting', batch: null, status: null, completed: 0, failed: 0, total: chunk.requests.length});
    let file: string;
    try {
      file = await api.upload(chunk.jsonl, `deltalens-score-${Date.now()}.jsonl`, o.signal);
    } catch (error) {
      // stopped while the file was sent: no batch exists yet, nothing is lost
      if (o.signal?.aborted) return summary(plan, submitted, true);
      throw error;
    }
    // not stopped by the signal from here: a batch the endpoint accepted is stored
    const state = await api.create(file);
    const row = {id: state.id, model: name, endpoint: api.endpoint, inputFile: file, status: state.status};
    writeTx(db, () => insertBatch(db, row, chunk.requests));
    submitted += chunk.requests.length;
    const stored = pendingBatches(db, name).find(b => b.id === state.id)!;
    if (!(await settle(stored, 'waiting'))) return summary(plan, submitted, true);
  }
  return summary(plan, submitted, false);
}
