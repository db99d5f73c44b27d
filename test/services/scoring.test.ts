import {afterEach, describe, expect, it} from 'vitest';
import {lexicalAnswer} from '../../source/core/questions/lexical.js';
import {buildPrompt, permutation} from '../../source/core/questions/prompt.js';
import {lexicalModel, openAiModel} from '../../source/services/qa-models.js';
import {buildReport} from '../../source/services/report.js';
import {scoreExplanations} from '../../source/services/scoring.js';
import {openDb, type Db} from '../../source/store/db.js';
import {ensureExplanation, insertQuestion, listAnswers} from '../../source/store/questions.js';
import {freshDb} from '../helpers/db.js';
import {letterOf, startOpenAiServer} from '../helpers/openai-server.js';
import {EFFECT, INTENT} from '../helpers/questions.js';

function setup(): Db {
  const {db} = freshDb();
  insertQuestion(db, INTENT);
  insertQuestion(db, EFFECT);
  ensureExplanation(db, {
    instance: 'i1',
    agent: 'agent-x',
    kind: 'original',
    text: 'Durations now add up: total == 5400 for 1h30m; parts are summed.',
    source: 'test',
  });
  return db;
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A "model" that knows the right answer to the intent question and always says "no effect" to the effect one. */
function scripted(prompt: string): string {
  if (!prompt.includes('Durations now add up')) return letterOf(prompt, 'insufficient'); // a blank explanation
  return prompt.includes('Which expression changes?')
    ? letterOf(prompt, 'no effect')
    : letterOf(prompt, 'total == 5400');
}

describe('score against a local OpenAI-compatible server', () => {
  it('stores every answer mapped back through the per-sample option order; the report equals a hand computation; a rerun makes no call', async () => {
    const server = await startOpenAiServer(call => ({answer: scripted(call.prompt), tokens: 42}));
    close = server.close;
    const db = setup();
    const model = openAiModel({
      model: 'test-model',
      baseURL: server.url,
      apiKey: 'k',
      temperature: 1,
      reasoningEffort: 'medium',
    });
    const r = await scoreExplanations(db, {model, samples: 5, concurrency: 3, kinds: ['original']});
    expect(r).toMatchObject({total: 10, done: 10, failed: 0, cached: 0});
    expect(server.calls).toHaveLength(10);
    expect(server.calls[0]!.body).toMatchObject({model: 'test-model', temperature: 1, reasoning_effort: 'medium'});
    // the option order differs between samples (seeded), "insufficient"/"no effect" stay last
    const orders = new Set(
      listAnswers(db)
        .filter(a => a.question === 'q-intent')
        .map(a =>
          JSON.stringify(
            db
              .prepare('SELECT permutation FROM qa_answer WHERE question = ? AND sample = ?')
              .pluck()
              .get(a.question, a.sample),
          ),
        ),
    );
    expect(orders.size).toBeGreaterThan(1);
    for (const o of orders) expect(JSON.parse(JSON.parse(o)).at(-1)).toBe('D');
    const answers = listAnswers(db, 'test-model');
    expect(
      answers.filter(a => a.question === 'q-intent').every(a => a.verdict === 'correct' && a.letters?.[0] === 'A'),
    ).toBe(true);
    expect(
      answers.filter(a => a.question === 'q-effect').every(a => a.verdict === 'misaligned' && a.letters?.[0] === 'C'),
    ).toBe(true);
    const stored = db
      .prepare('SELECT prompt_hash, raw, latency_ms, tokens, seed FROM qa_answer LIMIT 1')
      .get() as Record<string, unknown>;
    expect(stored).toMatchObject({tokens: 42, prompt_hash: expect.stringMatching(/^[0-9a-f]{64}$/)});
    // by hand: intent 1.0 in every run, local effect 0.0 → S_exp 0.5 ± 0; local effect all misaligned
    const agent = buildReport(db, {model: 'test-model'}).agents[0]!;
    expect(agent).toMatchObject({agent: 'agent-x', s_exp: 0.5, s_exp_sem: 0, runs: 5});
    expect(agent.types.e2e_intent).toMatchObject({score: 1, n: 1, misaligned: 0, uninformative: 0});
    expect(agent.types.local_effect).toMatchObject({score: 0, misaligned: 1, uninformative: 0});
    const again = await scoreExplanations(db, {model, samples: 5, concurrency: 3, kinds: ['original']});
    expect(again).toMatchObject({cached: 10, done: 0});
    expect(server.calls).toHaveLength(10);
  });

  it('retries 429 (honouring Retry-After) and 500s, and counts a malformed body as a failure that the next run repairs', async () => {
    let first = true;
    const server = await startOpenAiServer(call => {
      if (call.index === 0) return {status: 429, headers: {'retry-after': '1'}};
      if (call.index === 1) return {status: 500};
      if (first && call.prompt.includes('Which expression changes?')) {
        first = false;
        return {malformed: '{"choices": "not a list"}'};
      }
      return {answer: scripted(call.prompt)};
    });
    close = server.close;
    const db = setup();
    const model = openAiModel({model: 'm', baseURL: server.url, apiKey: 'k', maxRetries: 3});
    const t0 = Date.now();
    const r = await scoreExplanations(db, {model, samples: 1, concurrency: 1, kinds: ['original']});
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000); // waited the Retry-After second
    expect(r.failed).toBe(1);
    expect(r.errors[0]).toMatch(/without choices\[0\]\.message\.content/);
    expect(listAnswers(db)).toHaveLength(1);
    const again = await scoreExplanations(db, {model, samples: 1, concurrency: 1, kinds: ['original']});
    expect(again).toMatchObject({cached: 1, done: 1, failed: 0});
    expect(listAnswers(db)).toHaveLength(2);
  });

  it('an interrupted run keeps what it finished and the next one does only the rest', async () => {
    const server = await startOpenAiServer(call => ({answer: scripted(call.prompt), delayMs: 50}));
    close = server.close;
    const db = setup();
    const model = openAiModel({model: 'm', baseURL: server.url, apiKey: 'k'});
    const controller = new AbortController();
    const r = await scoreExplanations(db, {
      model,
      samples: 5,
      concurrency: 1,
      kinds: ['original'],
      signal: controller.signal,
      onProgress: p => {
        if (p.done === 3) controller.abort();
      },
    });
    expect(r.interrupted).toBe(true);
    const kept = listAnswers(db).length;
    expect(kept).toBe(3);
    const rest = await scoreExplanations(db, {model, samples: 5, concurrency: 2, kinds: ['original']});
    expect(rest).toMatchObject({cached: 3, done: 7});
    // every (question, explanation, sample) answered once: 10 calls stored from at most 11 made (one was in flight)
    expect(listAnswers(db)).toHaveLength(10);
    expect(server.calls.length).toBeLessThanOrEqual(11);
  });

  it('runs calls concurrently', async () => {
    const server = await startOpenAiServer(call => ({answer: scripted(call.prompt), delayMs: 200}));
    close = server.close;
    const db = setup();
    const t0 = Date.now();
    await scoreExplanations(db, {
      model: openAiModel({model: 'm', baseURL: server.url, apiKey: 'k'}),
      samples: 4,
      concurrency: 8,
      kinds: ['original'],
    });
    expect(Date.now() - t0).toBeLessThan(8 * 200); // 8 calls of 200 ms, not one after another
  });
});

describe('the lexical baseline and the blank explanation', () => {
  it('picks by word overlap, and "insufficient" when the explanation says nothing', () => {
    const p = buildPrompt(INTENT, 'Durations now add up: total == 5400 for 1h30m.', null).text;
    expect(lexicalAnswer(p)).toBe('A');
    expect(lexicalAnswer(buildPrompt(INTENT, '', null).text)).toBe('D');
    expect(lexicalAnswer(buildPrompt(INTENT, 'I refactored some code.', null).text)).toBe('D');
  });

  it('a blank explanation scores 0 with a model that answers only from the explanation', async () => {
    const db = setup();
    const r = await scoreExplanations(db, {model: lexicalModel(), samples: 2, concurrency: 1, kinds: ['blank']});
    expect(r.done).toBe(4);
    const blank = buildReport(db, {model: 'lexical'}).agents.find(a => a.explanations === 'blank')!;
    expect(blank.s_exp).toBe(0);
    expect(blank.types.e2e_intent.uninformative).toBe(1);
  });

  it('an explanation no stored question is asked about is named, not silently left at 0', async () => {
    const {db} = freshDb();
    insertQuestion(db, INTENT);
    ensureExplanation(db, {instance: 'i1', agent: 'a', kind: 'original', text: 'total becomes 5400', source: 'test'});
    ensureExplanation(db, {
      instance: 'audit',
      agent: 'audited-agent',
      kind: 'original',
      text: 'It fixes the bug.',
      source: 'test',
    });
    const r = await scoreExplanations(db, {model: lexicalModel(), samples: 1, concurrency: 1, kinds: ['original']});
    expect(r).toMatchObject({
      done: 1,
      explanations: 2,
      withoutQuestions: [{instance: 'audit', agent: 'audited-agent', kind: 'original'}],
    });
  });

  it('the same seed gives the same order; another seed another', () => {
    expect(permutation(INTENT, 7)).toEqual(permutation(INTENT, 7));
    const orders = new Set([1, 2, 3, 4, 5, 6].map(s => permutation(INTENT, s).join('')));
    expect(orders.size).toBeGreaterThan(1);
    for (const o of orders) expect(o.endsWith('D')).toBe(true);
  });
});

describe('the QA client is bounded', () => {
  it('a call slower than the timeout fails (the answer is asked again on the next run, not lost)', async () => {
    const slow = await startOpenAiServer(call => ({answer: scripted(call.prompt), delayMs: 3000}));
    const db = setup();
    try {
      const r = await scoreExplanations(db, {
        model: openAiModel({model: 'm', baseURL: slow.url, apiKey: 'k', timeoutMs: 300, maxRetries: 0}),
        samples: 2,
        concurrency: 4,
        kinds: ['original'],
      });
      expect(r.failed).toBe(4);
      expect(r.errors[0]).toMatch(/timed out/i);
      expect(listAnswers(db, 'm')).toHaveLength(0);
    } finally {
      await slow.close();
    }
    const fast = await startOpenAiServer(call => ({answer: scripted(call.prompt)}));
    close = fast.close;
    const again = await scoreExplanations(db, {
      model: openAiModel({model: 'm', baseURL: fast.url, apiKey: 'k'}),
      samples: 2,
      concurrency: 4,
      kinds: ['original'],
    });
    expect(again).toMatchObject({done: 4, failed: 0});
  });

  it('a huge answer is stored cut, with a marker; a huge response body is refused', async () => {
    const server = await startOpenAiServer(call =>
      call.index === 0
        ? {answer: `${scripted(call.prompt)} ${'because '.repeat(20_000)}`}
        : {malformed: `{"x": "${'y'.repeat(9 * 1024 * 1024)}"}`},
    );
    close = server.close;
    const db = setup();
    const r = await scoreExplanations(db, {
      model: openAiModel({model: 'm', baseURL: server.url, apiKey: 'k', maxRetries: 0}),
      samples: 1,
      concurrency: 1,
      kinds: ['original'],
      question: 'q-intent',
    });
    expect(r.done).toBe(1);
    const stored = listAnswers(db, 'm')[0]!;
    expect(stored.raw!.length).toBeLessThan(33 * 1024);
    expect(stored.raw).toMatch(/\[… answer truncated by deltalens: 160\d\d\d characters in all, 32768 kept\]$/);
    expect(stored.verdict).toBe('correct');
    const big = await scoreExplanations(db, {
      model: openAiModel({model: 'm2', baseURL: server.url, apiKey: 'k', maxRetries: 0}),
      samples: 1,
      concurrency: 1,
      kinds: ['original'],
      question: 'q-intent',
    });
    expect(big.failed).toBe(1);
    expect(big.errors[0]).toMatch(/over 8388608 bytes/);
  });
});

describe('a busy database', () => {
  it('score waits for another writer longer than the busy timeout and stores every answer it was sent', async () => {
    const server = await startOpenAiServer(call => ({answer: scripted(call.prompt)}));
    close = server.close;
    const {db, path} = freshDb();
    insertQuestion(db, INTENT);
    insertQuestion(db, EFFECT);
    ensureExplanation(db, {
      instance: 'i1',
      agent: 'agent-x',
      kind: 'original',
      text: 'Durations now add up: total == 5400 for 1h30m; parts are summed.',
      source: 'test',
    });
    db.pragma('busy_timeout = 100'); // this connection gives up quickly...
    const other = openDb(path);
    other.exec('BEGIN IMMEDIATE'); // ...while another holds the write lock for a second and a half
    setTimeout(() => other.exec('COMMIT'), 1500);
    const waits: string[] = [];
    const r = await scoreExplanations(db, {
      model: openAiModel({model: 'm', baseURL: server.url, apiKey: 'k'}),
      samples: 3,
      concurrency: 3,
      kinds: ['original'],
      onProgress: p => p.lastError && waits.push(p.lastError),
    });
    expect(r).toMatchObject({done: 6, failed: 0});
    expect(listAnswers(db, 'm')).toHaveLength(6);
    expect(server.calls).toHaveLength(6);
    expect(waits.some(w => /database is busy.*waiting to store an answer/.test(w))).toBe(true);
    other.close();
  });
});
