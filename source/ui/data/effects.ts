/**
 * What the explorer changes, runs or opens — the one object the command runner (ui/intents.ts)
 * calls: labels, flags, stages and reviews written to the store; re-scores, audits, live
 * re-runs and re-validations run; $EDITOR opened. Readers never do any of it.
 */
import {editDocument} from '../../core/questions/edit.js';
import {annotatorName} from '../../services/annotation.js';
import {editText} from '../../services/editor.js';
import type {QaModel} from '../../services/qa-models.js';
import type {EditResult} from '../../services/question-revalidate.js';
import {reviewQuestion} from '../../services/question-review.js';
import {scoreExplanations, type ScoreResult} from '../../services/scoring.js';
import type {StepperModel, WatchValue} from '../../services/stepper.js';
import {setFlag} from '../../store/annotations.js';
import type {AuditRow} from '../../store/audits.js';
import {writeTx, type Db} from '../../store/db.js';
import {removeStageOverride, setStageOverride} from '../../store/lens.js';
import {answersFor, ensureExplanation, getQuestion, replaceExplanationText} from '../../store/questions.js';
import type {ReportCache} from './questions.js';

export interface ExplorerEffects {
  /** starts an audit of a stored run (or of the agent's explanation on the instance) with $DELTALENS_AUDIT_MODEL */
  startAudit(
    target: {trajectory: number} | {instance: string; agent: string},
    onEvent: (text: string) => void,
  ): Promise<AuditRow>;
  /** stops what is running (an audit: its transcript kept, marked incomplete) */
  cancelJobs(): void;
  /** resolves once nothing started here is still running */
  whenIdle(): Promise<void>;
  liveWatch(model: StepperModel, row: number, exprs: string[]): Promise<WatchValue[]>;
  /** accepts or rejects a built question; returns what was done */
  review(question: string, action: 'accepted' | 'rejected', note: string): string;
  /** the built question edited in $EDITOR (a refused edit comes back to be fixed); null: unchanged */
  editQuestion(question: string): {text: string | null; error?: string};
  /** re-validates an edited question and saves it if every changed choice passes */
  saveQuestionEdit(question: string, text: string, onProgress: (detail: string) => void): Promise<EditResult>;
  /** Re-scores with `model` (null: $DELTALENS_QA_MODEL through an OpenAI-compatible endpoint,
   * else lexical): the samples not stored yet; fresh: 5 new samples past the stored ones. */
  rescore(
    questionId: string,
    explanationId: number,
    onProgress?: (done: number, total: number) => void,
    fresh?: boolean,
    model?: string | null,
  ): Promise<ScoreResult & {modelName: string}>;
  /** the text edited in $EDITOR (null: unchanged) */
  edit(text: string): {text: string | null; error?: string};
  saveCustom(instance: string, agent: string, text: string): number;
  /** a person's stage for a step (null removes theirs); returns what was done */
  setStage(id: number, idx: number, stage: string | null): string;
  setFlag(question: string, verdict: string, note: string): string;
}

export interface EffectOptions {
  /** --no-sandbox: live re-runs may run unconfined */
  noSandbox?: boolean;
  passEnv?: string[];
}

/** Loaded on first use: the openai package is not needed to draw the explorer. The model is
 * chosen as `score` chooses it (services/qa-models.ts), from the environment. */
export async function liveQaModel(env: NodeJS.ProcessEnv = process.env, name?: string | null): Promise<QaModel> {
  const {explorerQaChoice, qaModelFrom} = await import('../../services/qa-models.js');
  const choice = explorerQaChoice(env);
  return qaModelFrom(
    name ? {...choice, model: name} : choice,
    env,
    '(or name another variable in $DELTALENS_QA_KEY_ENV)',
  );
}

export function explorerEffects(db: Db, reports: ReportCache, options: EffectOptions = {}): ExplorerEffects {
  // an edit the re-validation refused: the next edit starts from it, so nothing typed is lost
  const refusedEdits = new Map<string, string>();
  // audits running now: Ctrl+C stops them, and the explorer waits for them before it closes the store
  const jobs = new Map<Promise<unknown>, AbortController>();
  return {
    startAudit: (target, onEvent) => {
      const controller = new AbortController();
      const job = (async () => {
        const {startExplorerAudit} = await import('../../services/audit.js');
        reports.clear();
        return startExplorerAudit(db, target, {
          noSandbox: options.noSandbox,
          passEnv: options.passEnv,
          onEvent,
          signal: controller.signal,
        });
      })();
      const tracked = job.finally(() => jobs.delete(tracked));
      jobs.set(tracked, controller);
      return tracked;
    },
    cancelJobs: () => {
      for (const c of jobs.values()) c.abort();
    },
    whenIdle: async () => {
      await Promise.allSettled([...jobs.keys()]);
    },
    // execa and the workspace code load on the first live re-run
    liveWatch: async (model, row, exprs) =>
      (await import('../../services/live-eval.js')).liveWatch(model, row, exprs, {
        sandbox: options.noSandbox ? 'off' : undefined,
        passEnv: options.passEnv,
        // the screen is Ink's: the warning was given once when the explorer opened
        onWarning: () => {},
      }),
    review: (question, action, note) => {
      const who = annotatorName();
      reports.clear();
      reviewQuestion(db, question, action, who, note || null);
      return `${action} as ${who}${note ? ' with a note' : ''}${action === 'rejected' ? ': left out of score, report and exports' : ''}`;
    },
    editQuestion: question => {
      const q = getQuestion(db, question);
      if (!q) return {text: null, error: `no question ${question}`};
      const start = refusedEdits.get(question) ?? editDocument(q);
      const r = editText(start, process.env, 'question.json');
      // a refused edit opened again unchanged is still an edit to re-validate
      return r.text === null && refusedEdits.has(question) && !r.error ? {text: start} : r;
    },
    saveQuestionEdit: async (question, text, onProgress) => {
      // loaded on first use: the builder's machinery is not needed to draw the explorer
      const {saveEditedQuestion} = await import('../../services/question-revalidate.js');
      const r = await saveEditedQuestion(db, question, text, {
        python: process.env.DELTALENS_PYTHON ?? 'python3',
        sandbox: options.noSandbox ? 'off' : 'require',
        passEnv: options.passEnv,
        reviewer: annotatorName(),
        onProgress,
      }).catch((error: unknown) => {
        refusedEdits.set(question, text);
        throw error;
      });
      if (r.saved) {
        refusedEdits.delete(question);
        reports.clear();
      } else if (r.problems[0] !== 'unchanged: nothing to save') refusedEdits.set(question, text);
      return r;
    },
    rescore: async (questionId, explanationId, onProgress, fresh, name) => {
      const model = await liveQaModel(process.env, name);
      // samples are numbered per model; fresh ones start past the last stored
      const stored = answersFor(db, questionId, explanationId).filter(a => a.model === model.name);
      const samples = fresh ? Math.max(-1, ...stored.map(a => a.sample)) + 1 + 5 : 5;
      const r = await scoreExplanations(db, {
        model,
        samples,
        concurrency: 5,
        kinds: ['original', 'audited', 'blank', 'custom'],
        question: questionId,
        explanation: explanationId,
        onProgress: p => onProgress?.(p.done + p.failed, p.total - p.cached),
      });
      reports.clear();
      return {...r, modelName: model.name};
    },
    edit: text => editText(text),
    saveCustom: (instance, agent, text) => {
      reports.clear();
      return writeTx(db, () => {
        const id = ensureExplanation(db, {instance, agent, kind: 'custom', text, source: 'edited in the explorer'});
        replaceExplanationText(db, id, text);
        return id;
      });
    },
    setStage: (id, idx, stage) => {
      const who = annotatorName();
      if (stage === null)
        return removeStageOverride(db, id, idx, who)
          ? `removed ${who}'s stage for step ${idx + 1}`
          : `${who} had no stage for step ${idx + 1}`;
      setStageOverride(db, {trajectory: id, idx, annotator: who, stage});
      return `step ${idx + 1}: ${who} says ${stage} (stored; lens build rescores)`;
    },
    setFlag: (question, verdict, note) => {
      const who = annotatorName();
      setFlag(db, {question, author: who, verdict, note: note || null});
      return `flagged ${verdict}${note ? ' with a note' : ''} as ${who} (deltalens flags lists them)`;
    },
  };
}
