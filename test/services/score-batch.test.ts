/**
 * score --batch against a real local server speaking OpenAI's files and batches endpoints (its
 * requests answered by the same script as online calls), into a real SQLite file.
 */
import {afterEach, describe, expect, it} from 'vitest';
import {openAiModel} from '../../source/services/qa-models.js';
import {scoreBatch, type BatchProgress} from '../../source/services/score-batch.js';
import {scoreExplanations} from '../../source/services/scoring.js';
import type {Db} from '../../source/store/db.js';
import {ensureExplanation, insertQuestion, listAnswers} from '../../source/store/questions.js';
import {listBatches} from '../../source/store/score-batches.js';
import {freshDb} from '../helpers/db.js';
import {startCli} from '../helpers/hostile.js';
import {letterOf, startOpenAiServer, type Call, type Reply} from '../helpers/openai-server.js';
import {EFFECT, INTENT} from '../helpers/questions.js';

function setup(): {db: Db; path: string} {
  const made = freshDb();
  insertQuestion(made.db, INTENT);
  insertQuestion(made.db, EFFECT);
  ensureExplanation(made.db, {
    instance: 'i1',
    agent: 'agent-x',
    kind: 'original',
    text: 'Durations now add up: total == 5400 for 1h30m; parts are summed.',
    source: 'test',
  });
  return made;
}

/** Right on the intent question, "no effect" on the effect one, and now and then an answer that is no letter. */
function scripted(call: Call): Reply {
  const p = call.prompt;
  if (p.includes('Which expression changes?'))
    return {answer: call.index % 3 === 2 ? 'I think parts' : letterOf(p, 'no effect')};
  return {answer: letterOf(p, 'total == 5400'), tokens: 42};
}

/** The stored answers as they decide a score: which call, its prompt, the letters and the verdict. */
const stored = (db: Db) =>
  db
    .prepare(
      `SELECT question, explanation, sample, prompt_hash, raw, letters, verdict, permutation, seed
       FROM qa_answer ORDER BY question, explanation, sample`,
    )
    .all();

const servers: {close(): Promise<void>}[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function server(script: (call: Call) => Reply, options?: Parameters<typeof startOpenAiServer>[1]) {
  const s = await startOpenAiServer(script, options);
  servers.push(s);
  return s;
}

const model = (url: string) => openAiModel({model: 'm', baseURL: url, apiKey: 'k', maxRetries: 3});
const base = {samples: 3, kinds: ['original' as const], pollSeconds: 0};

describe('score --batch', () => {
  it('stores the same answers and verdicts as online calls, from one batch', async () => {
    // the script answers by the prompt (its option order), so both paths get the same replies
    const byPrompt = (call: Call): Reply =>
      call.prompt.includes('Which expression changes?') && call.prompt.includes('A. seen')
        ? {answer: 'not a letter'}
        : scripted({...call, index: 0});
    const online = setup();
    const s1 = await server(byPrompt);
    await scoreExplanations(online.db, {...base, model: model(s1.url), concurrency: 4});
    const batch = setup();
    const s2 = await server(byPrompt);
    const progress: BatchProgress[] = [];
    const r = await scoreBatch(batch.db, {...base, model: model(s2.url), onProgress: p => progress.push(p)});
    expect(r).toMatchObject({submitted: 6, stored: 6, failed: 0, interrupted: false, pending: []});
    expect(r.batches).toEqual([
      {id: expect.stringMatching(/^batch_/), status: 'completed', requests: 6, stored: 6, failed: 0},
    ]);
    expect(s2.counts.create).toBe(1);
    expect(stored(batch.db)).toEqual(stored(online.db));
    // right on one, wrong on the other, and answers that are no letter (kept, no verdict)
    const verdicts = (stored(batch.db) as {verdict: string | null}[]).map(a => a.verdict);
    expect(verdicts).toEqual(['misaligned', null, null, 'correct', 'correct', 'correct']);
    // the answers are the model's, with its tokens, and no latency (a batch has none per call)
    const a = batch.db
      .prepare("SELECT model, tokens, latency_ms AS latencyMs FROM qa_answer WHERE question = 'q-intent' LIMIT 1")
      .get();
    expect(a).toEqual({model: 'm', tokens: 42, latencyMs: null});
    expect(new Set(progress.map(p => p.phase))).toEqual(new Set(['submitting', 'waiting', 'storing']));
    // nothing left to ask: no new batch
    const again = await scoreBatch(batch.db, {...base, model: model(s2.url)});
    expect(again).toMatchObject({submitted: 0, stored: 0, cached: 6});
    expect(s2.counts.create).toBe(1);
  });

  it('Ctrl+C while waiting keeps the batch: the next run collects it and pays for nothing twice', async () => {
    const {db} = setup();
    const s = await server(scripted, {step: 2});
    const stop = new AbortController();
    const first = await scoreBatch(db, {
      ...base,
      model: model(s.url),
      signal: stop.signal,
      onProgress: p => {
        if (p.phase === 'waiting') stop.abort();
      },
    });
    const [id] = [...s.batches.keys()];
    expect(first).toMatchObject({submitted: 6, stored: 0, interrupted: true, pending: [id]});
    expect(listAnswers(db)).toHaveLength(0);
    expect(listBatches(db)).toMatchObject([{id, requests: 6, ingestedAt: null}]);
    const second = await scoreBatch(db, {...base, model: model(s.url)});
    expect(second).toMatchObject({submitted: 0, stored: 6, interrupted: false, pending: []});
    expect(s.counts.create).toBe(1);
    expect(listAnswers(db)).toHaveLength(6);
    // collecting the same batch again stores nothing twice
    db.prepare('UPDATE score_batch SET ingested_at = NULL').run();
    const third = await scoreBatch(db, {...base, model: model(s.url)});
    expect(third).toMatchObject({submitted: 0, stored: 0});
    expect(listAnswers(db)).toHaveLength(6);
    expect(s.counts.create).toBe(1);
  });

  it('a failed request and a batch that expired midway: what has no answer is asked again by the next run', async () => {
    const {db} = setup();
    // the first request fails; the batch expires after four of its six
    const s = await server(call => (call.index === 0 ? {status: 500} : scripted(call)), {
      endAs: {status: 'expired', after: 4},
    });
    const first = await scoreBatch(db, {...base, model: model(s.url)});
    expect(first).toMatchObject({submitted: 6, stored: 3, failed: 1});
    expect(first.batches).toEqual([
      {id: expect.stringMatching(/^batch_/), status: 'expired', requests: 6, stored: 3, failed: 1},
    ]);
    expect(first.errors.some(e => /q-\w+ × explanation \d+ sample \d: scripted 500/.test(e))).toBe(true);
    expect(first.errors.some(e => /ended expired: 2 of its requests have no answer/.test(e))).toBe(true);
    expect(listAnswers(db)).toHaveLength(3);
    // the next run asks the three without an answer, in a new batch (this one runs to its end)
    const s2 = await server(scripted);
    const second = await scoreBatch(db, {...base, model: model(s2.url)});
    expect(second).toMatchObject({submitted: 3, stored: 3, failed: 0, cached: 3});
    expect(listAnswers(db)).toHaveLength(6);
  });

  it('a rate-limited look at the batch (429 with Retry-After) is retried', async () => {
    const {db} = setup();
    const s = await server(scripted, {
      onRequest: (what, i) => (what === 'retrieve' && i === 0 ? {status: 429, headers: {'retry-after': '0'}} : null),
    });
    const r = await scoreBatch(db, {...base, model: model(s.url)});
    expect(r).toMatchObject({stored: 6, failed: 0});
    expect(s.counts.retrieve).toBeGreaterThan(1);
  });

  it('an endpoint that keeps refusing the batch: one line saying so, nothing stored, the next run sends it again', async () => {
    const {db} = setup();
    const s = await server(scripted, {onRequest: what => (what === 'create' ? {status: 500} : null)});
    const refusing = openAiModel({model: 'm', baseURL: s.url, apiKey: 'k', maxRetries: 0});
    await expect(scoreBatch(db, {...base, model: refusing})).rejects.toThrow(
      /^the Batch API at http:\/\/127\.0\.0\.1:\d+\/v1: 500 scripted 500; every batch it accepted is stored/,
    );
    expect(listBatches(db)).toEqual([]);
    const s2 = await server(scripted);
    expect(await scoreBatch(db, {...base, model: model(s2.url)})).toMatchObject({submitted: 6, stored: 6});
  });

  it('splits the requests into batches of at most --max requests', async () => {
    const {db} = setup();
    const s = await server(scripted);
    const r = await scoreBatch(db, {...base, model: model(s.url), maxRequests: 4});
    expect(r.batches.map(b => b.requests)).toEqual([4, 2]);
    expect(r.stored).toBe(6);
  });
});

describe('deltalens score --batch', () => {
  it('scores through the batch endpoints with --json; the offline baseline is refused', async () => {
    const {db, path} = setup();
    db.close();
    const s = await server(scripted);
    const env = {OPENAI_API_KEY: 'test-key'};
    const cli = startCli(
      [
        'score',
        '--batch',
        '--poll-seconds',
        '0',
        '--model',
        'm',
        '--base-url',
        s.url,
        '--samples',
        '2',
        '--db',
        path,
        '--json',
      ],
      env,
    );
    const end = await cli.done;
    expect(end.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({model: 'm', submitted: 4, stored: 4, failed: 0, pending: []});
    for (const line of cli.stderr.split('\n').filter(Boolean)) expect(() => JSON.parse(line), line).not.toThrow();
    const lexical = startCli(['score', '--batch', '--db', path], env);
    const refused = await lexical.done;
    expect(refused.code).toBe(2);
    expect(lexical.stderr).toMatch(/--batch sends the calls to a model's Batch API; lexical is the offline baseline/);
  });
});
