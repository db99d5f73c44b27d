/**
 * Scoring benchmarks: throughput against a local OpenAI-compatible server with a fixed 200 ms
 * latency (calls/s vs the ideal concurrency/latency), and the report's time on 300 instances
 * × 5 agents × 4 types × 5 samples.
 */
import {rmSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {validateQuestion, type QuestionType} from '../../source/core/questions/model.js';
import {openAiModel} from '../../source/services/qa-models.js';
import {buildReport} from '../../source/services/report.js';
import {scoreExplanations} from '../../source/services/scoring.js';
import {openDb} from '../../source/store/db.js';
import {ensureExplanation, insertAnswer, insertQuestion} from '../../source/store/questions.js';
import {startOpenAiServer} from '../helpers/openai-server.js';

/** A bench question: three options and the fixed ones its type has; the key A (A, B for end-to-end effect). */
export function question(id: string, instance: string, type: QuestionType, agent: string | null) {
  const choices = [
    {label: 'A', text: 'alpha', role: 'correct' as const},
    {label: 'B', text: 'beta', role: 'distractor' as const},
    {label: 'C', text: 'gamma', role: 'distractor' as const},
    ...(type === 'local_effect' ? [{label: 'D', text: 'The patch has no effect.', role: 'no_effect' as const}] : []),
    {
      label: type === 'local_effect' ? 'E' : 'D',
      text: 'Explanation insufficient to answer.',
      role: 'insufficient' as const,
    },
  ];
  return validateQuestion({
    id,
    instance,
    type,
    ...(agent ? {agent} : {}),
    context: {},
    question: 'Which?',
    choices,
    answer: type === 'e2e_effect' ? ['A', 'B'] : 'A',
  });
}

export async function benchScoring(out: string, log: (line: string) => void): Promise<void> {
  const server = await startOpenAiServer(() => ({answer: 'A', delayMs: 200}));
  try {
    for (const concurrency of [1, 8, 32]) {
      const path = join(out, `score-${concurrency}.db`);
      for (const s of ['', '-wal', '-shm']) rmSync(path + s, {force: true});
      const db = openDb(path);
      const n = concurrency * 25;
      db.transaction(() => {
        for (let i = 0; i < n; i++) {
          insertQuestion(db, question(`q${i}`, `i${i}`, 'e2e_intent', null));
          ensureExplanation(db, {instance: `i${i}`, agent: 'a', kind: 'original', text: 'alpha', source: 'bench'});
        }
      })();
      const t = performance.now();
      const r = await scoreExplanations(db, {
        model: openAiModel({model: 'bench', baseURL: server.url, apiKey: 'k'}),
        samples: 1,
        concurrency,
        kinds: ['original'],
      });
      const seconds = (performance.now() - t) / 1000;
      const rate = r.done / seconds;
      const ideal = concurrency / 0.2;
      log(
        `scoring at concurrency ${concurrency}: ${r.done} calls in ${seconds.toFixed(2)} s = ${rate.toFixed(1)} calls/s, ${((rate / ideal) * 100).toFixed(0)}% of the ideal ${ideal} calls/s (200 ms per call)`,
      );
      db.close();
    }
  } finally {
    await server.close();
  }
  // the report on 300 instances × 5 agents × 4 types × 5 samples
  const path = join(out, 'report.db');
  for (const s of ['', '-wal', '-shm']) rmSync(path + s, {force: true});
  const db = openDb(path);
  let answers = 0;
  db.transaction(() => {
    for (let i = 0; i < 300; i++) {
      const inst = `inst-${i}`;
      insertQuestion(db, question(`${inst}/e2e_intent`, inst, 'e2e_intent', null));
      insertQuestion(db, question(`${inst}/local_intent`, inst, 'local_intent', null));
      for (let a = 0; a < 5; a++) {
        const agent = `agent-${a}`;
        insertQuestion(db, question(`${inst}/e2e_effect/${agent}`, inst, 'e2e_effect', agent));
        insertQuestion(db, question(`${inst}/local_effect/${agent}`, inst, 'local_effect', agent));
        const e = ensureExplanation(db, {instance: inst, agent, kind: 'original', text: null, source: 'bench'});
        for (const [qid, type] of [
          [`${inst}/e2e_intent`, 'e2e_intent'],
          [`${inst}/local_intent`, 'local_intent'],
          [`${inst}/e2e_effect/${agent}`, 'e2e_effect'],
          [`${inst}/local_effect/${agent}`, 'local_effect'],
        ] as const) {
          for (let s = 0; s < 5; s++) {
            const ok = (i * 7 + a * 3 + s) % 4 !== 0;
            const letters = type === 'e2e_effect' ? (ok ? ['A', 'B'] : ['C', 'C']) : [ok ? 'A' : 'B'];
            insertAnswer(db, {
              question: qid,
              explanation: e,
              model: 'bench',
              sample: s,
              promptHash: 'p',
              raw: letters.join(','),
              letters,
              verdict: ok ? 'correct' : 'misaligned',
              latencyMs: null,
              tokens: null,
              origin: 'scored',
              permutation: null,
              seed: null,
            });
            answers += 1;
          }
        }
      }
    }
  })();
  const times: number[] = [];
  for (let k = 0; k < 3; k++) {
    const t = performance.now();
    buildReport(db, {model: 'bench'});
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  log(
    `report on 300 instances × 5 agents × 4 types × 5 samples (${answers.toLocaleString('en')} answers): median ${(times[1]! / 1000).toFixed(2)} s`,
  );
  db.close();
}

/**
 * score --batch at ExplainBench's scale: 300 instances × 5 agents × 4 types × 5 samples = 30,000
 * requests, sent as one batch to a local server implementing the files and batches endpoints
 * (answering at once), collected and stored. The rate is the client's: planning the calls,
 * writing and uploading the file, reading the output and storing every answer.
 */
export async function benchBatchScoring(out: string, log: (line: string) => void): Promise<void> {
  const {scoreBatch} = await import('../../source/services/score-batch.js');
  const server = await startOpenAiServer(call => ({answer: call.index % 4 ? 'A' : 'B'}));
  const path = join(out, 'score-batch.db');
  for (const s of ['', '-wal', '-shm']) rmSync(path + s, {force: true});
  const db = openDb(path);
  try {
    db.transaction(() => {
      for (let i = 0; i < 300; i++) {
        const inst = `inst-${i}`;
        insertQuestion(db, question(`${inst}/e2e_intent`, inst, 'e2e_intent', null));
        insertQuestion(db, question(`${inst}/local_intent`, inst, 'local_intent', null));
        for (let a = 0; a < 5; a++) {
          const agent = `agent-${a}`;
          insertQuestion(db, question(`${inst}/e2e_effect/${agent}`, inst, 'e2e_effect', agent));
          insertQuestion(db, question(`${inst}/local_effect/${agent}`, inst, 'local_effect', agent));
          ensureExplanation(db, {
            instance: inst,
            agent,
            kind: 'original',
            text: `The patch makes alpha hold where beta did (${agent}, ${inst}). `.repeat(8),
            source: 'bench',
          });
        }
      }
    })();
    const marks: Record<string, number> = {};
    const t = performance.now();
    const r = await scoreBatch(db, {
      model: openAiModel({model: 'bench', baseURL: server.url, apiKey: 'k'}),
      samples: 5,
      kinds: ['original'],
      pollSeconds: 0,
      onProgress: p => {
        marks[p.phase] ??= performance.now();
      },
    });
    const end = performance.now();
    const seconds = (end - t) / 1000;
    const storing = (end - (marks['storing'] ?? end)) / 1000;
    const planning = ((marks['submitting'] ?? t) - t) / 1000;
    const sending = ((marks['waiting'] ?? t) - (marks['submitting'] ?? t)) / 1000;
    log(
      `score --batch, 30,000 requests (300 instances × 5 agents × 4 types × 5 samples) in ${r.batches.length} batch(es) against a local server: ${r.stored.toLocaleString('en')} answers stored in ${seconds.toFixed(1)} s = ${Math.round(r.stored / seconds).toLocaleString('en')} answers/s end to end (planning ${planning.toFixed(1)} s, the file written and sent ${sending.toFixed(1)} s, collecting and storing ${storing.toFixed(1)} s = ${Math.round(r.stored / storing).toLocaleString('en')} answers/s)`,
    );
  } finally {
    db.close();
    await server.close();
  }
}
