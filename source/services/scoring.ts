/**
 * `deltalens score`: every (question × explanation × sample) not answered yet by a model.
 * Each answer is stored the moment it arrives, keyed by (question, explanation, model,
 * sample, prompt hash), so a rerun never repeats a finished call and an interrupted run
 * loses nothing.
 */
import {createHash} from 'node:crypto';
import {setMaxListeners} from 'node:events';
import {parseAnswer, verdictFor} from '../core/questions/answers.js';
import {isEffect, type Question} from '../core/questions/model.js';
import {buildPrompt, canonicalLetters, PROMPT_VERSION, seedOf} from '../core/questions/prompt.js';
import {writeTx, type Db} from '../store/db.js';
import {
  answerStored,
  ensureExplanation,
  explanationTexts,
  insertAnswer,
  listExplanations,
  listQuestions,
  rejectedQuestions,
  type ExplanationRow,
  type NewAnswer,
} from '../store/questions.js';
import type {QaModel} from './qa-models.js';

export type ExplanationKind = 'original' | 'audited' | 'blank' | 'custom';

export interface ScoreOptions {
  model: QaModel;
  samples: number;
  concurrency: number;
  agent?: string;
  kinds: ExplanationKind[];
  /** the question and options only: no explanation, no context (an artifact check) */
  choicesOnly?: boolean;
  /** only this question / this explanation (the explorer's live re-score) */
  question?: string;
  /** only these questions (the checks after questions build) */
  questions?: Set<string>;
  explanation?: number;
  /** questions to leave out (flagged: --exclude-flagged) */
  excludeQuestions?: Set<string>;
  onProgress?: (p: ScoreProgress) => void;
  signal?: AbortSignal;
}

export interface ScoreProgress {
  total: number;
  cached: number;
  done: number;
  failed: number;
  unparseable: number;
  rate: number;
  etaSeconds: number | null;
  lastError?: string;
}

export interface ScoreResult extends ScoreProgress {
  model: string;
  interrupted: boolean;
  withoutText: number;
  /** explanations chosen that no stored question is asked about (no question of their instance, or none for their agent) */
  withoutQuestions: {id: number; instance: string | null; agent: string | null; kind: string}[];
  /** how many explanations were chosen (by kind, --agent, --explanation) */
  explanations: number;
  errors: string[];
}

/** One call to make: a question asked about an explanation, one sample (its option order). */
export interface ScoreTask {
  q: Question;
  e: ExplanationRow & {text: string};
  sample: number;
  prompt: ReturnType<typeof buildPrompt>;
  hash: string;
  seed: number;
}

/** Whether a question is asked about an explanation: the same instance; effect questions only about the agent (or run) they concern. */
export function applies(q: Question, e: ExplanationRow): boolean {
  if (e.instance !== q.instance) return false;
  if (!isEffect(q.type)) return true;
  if (q.trajectory !== null) return e.trajectory === q.trajectory;
  return e.agent === q.agent;
}

/**
 * An answer that arrived has been paid for: if another process holds the database longer than
 * the busy timeout, wait and try again (with the message shown as progress) instead of
 * dropping it. Only a non-busy error (a full disk) gives up.
 */
async function storeWaiting<T>(write: () => T, onWait: (message: string) => void): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return write();
    } catch (error) {
      const code = (error as {code?: string}).code ?? '';
      if (!code.startsWith('SQLITE_BUSY') && code !== 'SQLITE_LOCKED') throw error;
      onWait(
        `the database is busy (another deltalens is writing); waiting to store an answer (attempt ${attempt + 1})`,
      );
      await new Promise(resolve => setTimeout(resolve, Math.min(5000, 100 * 2 ** attempt)));
    }
  }
}

/** How a choices-only run's answers are named: after the model that gave them. */
export const CHOICES_ONLY = ' [choices only]';

export function modelName(model: QaModel, choicesOnly: boolean): string {
  return choicesOnly ? `${model.name}${CHOICES_ONLY}` : model.name;
}

/** What a scoring run is to do: the calls not answered yet, and what was chosen and left out. */
interface ScoringPlan {
  /** the model name the answers are stored under */
  name: string;
  tasks: ScoreTask[];
  cached: number;
  withoutText: number;
  withoutQuestions: ScoreResult['withoutQuestions'];
  explanations: number;
}

/** The calls a run makes (online or in a batch): every (question × explanation × sample) chosen
 * whose answer under this prompt is not stored yet. */
export function planScoring(db: Db, o: Omit<ScoreOptions, 'concurrency' | 'onProgress' | 'signal'>): ScoringPlan {
  const name = modelName(o.model, Boolean(o.choicesOnly));
  const rejected = rejectedQuestions(db);
  const questions = listQuestions(db).filter(q => !o.excludeQuestions?.has(q.id) && !rejected.has(q.id));
  if (o.kinds.includes('blank')) {
    // a blank explanation beside every original one: must score 0 with a sound QA model
    writeTx(db, () => {
      for (const e of listExplanations(db).filter(x => x.kind === 'original' && x.instance && x.agent)) {
        ensureExplanation(db, {
          instance: e.instance!,
          agent: e.agent!,
          kind: 'blank',
          text: '',
          source: 'deltalens score --explanations blank',
        });
      }
    });
  }
  const texts = explanationTexts(db);
  const explanations = listExplanations(db).filter(
    e =>
      o.kinds.includes(e.kind as ExplanationKind) &&
      (!o.agent || e.agent === o.agent) &&
      (o.explanation === undefined || e.id === o.explanation),
  );
  let withoutText = 0;
  const withoutQuestions: ScoreResult['withoutQuestions'] = [];
  const stored = answerStored(db);
  const tasks: ScoreTask[] = [];
  let cached = 0;
  for (const e of explanations) {
    const text = texts.get(e.id);
    if (text === null || text === undefined) {
      withoutText += 1;
      continue;
    }
    const asked = questions.filter(
      x => applies(x, e) && (!o.question || x.id === o.question) && (!o.questions || o.questions.has(x.id)),
    );
    if (!asked.length) withoutQuestions.push({id: e.id, instance: e.instance, agent: e.agent, kind: e.kind});
    for (const q of asked) {
      for (let sample = 0; sample < o.samples; sample++) {
        const seed = seedOf(q.id, e.id, sample);
        const prompt = buildPrompt(q, text, seed, {choicesOnly: o.choicesOnly});
        const hash = createHash('sha256').update(`${PROMPT_VERSION}\u0000${prompt.text}`).digest('hex');
        if (stored({question: q.id, explanation: e.id, model: name, sample, promptHash: hash})) {
          cached += 1;
          continue;
        }
        tasks.push({q, e: {...e, text}, sample, prompt, hash, seed});
      }
    }
  }
  return {name, tasks, cached, withoutText, withoutQuestions, explanations: explanations.length};
}

/** The stored answer for a model's reply to a task: its letters mapped back through the task's
 * option order, and the verdict (the same for an online call and a batch's line). */
export function answerRow(
  t: Pick<ScoreTask, 'q' | 'sample' | 'hash' | 'seed'> & {explanation: number; order: string[]},
  model: string,
  reply: {text: string; latencyMs: number | null; tokens: number | null},
): NewAnswer {
  const toCanonical = canonicalLetters(t.order);
  const display = parseAnswer(reply.text, t.q.type, [...toCanonical.keys()]);
  const letters = display ? display.map(l => toCanonical.get(l)!) : null;
  return {
    question: t.q.id,
    explanation: t.explanation,
    model,
    sample: t.sample,
    promptHash: t.hash,
    raw: reply.text,
    letters,
    verdict: verdictFor(letters, t.q.answer, t.q.choices),
    latencyMs: reply.latencyMs,
    tokens: reply.tokens,
    origin: 'scored',
    permutation: t.order,
    seed: t.seed,
  };
}

export async function scoreExplanations(db: Db, o: ScoreOptions): Promise<ScoreResult> {
  const {name, tasks, cached, withoutText, withoutQuestions, explanations} = planScoring(db, o);
  const progress: ScoreProgress = {
    total: tasks.length + cached,
    cached,
    done: 0,
    failed: 0,
    unparseable: 0,
    rate: 0,
    etaSeconds: null,
  };
  const errors: string[] = [];
  const started = performance.now();
  let next = 0;
  const report = () => {
    const seconds = (performance.now() - started) / 1000;
    progress.rate = seconds > 0 ? progress.done / seconds : 0;
    const left = tasks.length - progress.done - progress.failed;
    progress.etaSeconds = progress.rate > 0 ? left / progress.rate : null;
    o.onProgress?.({...progress});
  };
  const worker = async () => {
    while (next < tasks.length && !o.signal?.aborted) {
      const t = tasks[next++]!;
      try {
        const reply = await o.model.answer(t.prompt.text, o.signal);
        const row = answerRow({...t, explanation: t.e.id, order: t.prompt.order}, name, reply);
        if (!row.letters) progress.unparseable += 1;
        await storeWaiting(
          () => insertAnswer(db, row),
          waiting => {
            progress.lastError = waiting;
            report();
          },
        );
        progress.done += 1;
      } catch (error) {
        if (o.signal?.aborted) break;
        progress.failed += 1;
        const message = (error as Error).message;
        progress.lastError = message;
        if (errors.length < 20) errors.push(`${t.q.id} × explanation ${t.e.id} sample ${t.sample}: ${message}`);
      }
      report();
    }
  };
  // one abort listener per call in flight: not a leak, so no warning on stderr
  if (o.signal) setMaxListeners(0, o.signal);
  await Promise.all(Array.from({length: Math.max(1, Math.min(o.concurrency, tasks.length || 1))}, worker));
  report();
  return {
    ...progress,
    model: name,
    interrupted: Boolean(o.signal?.aborted),
    withoutText,
    withoutQuestions,
    explanations,
    errors,
  };
}
