import {writeTx, type Db} from '../store/db.js';
import {lensRankings, lensScoreOf, removeStageOverride, setStageOverride, whyNotScored} from '../store/lens.js';
import {referenceView, type PtaView} from '../services/lens.js';
import {getInstance} from '../store/instances.js';
import type {AutoFlag} from '../core/questions/annotation.js';
import {listFlags, setFlag, type FlagRow} from '../store/annotations.js';
import {agreementReport, annotatorName, automaticFlags, type AgreementReport} from '../services/annotation.js';
import {getTrace, latestDelta, listPairs} from '../store/traces.js';
import {openStepper, type StepperModel, type WatchValue} from '../services/stepper.js';
import {agentQuestions, buildReport, type Report} from '../services/report.js';
import type {QaModel} from '../services/qa-models.js';
import {scoreExplanations, type ScoreResult} from '../services/scoring.js';
import {
  listExclusions,
  listQuestions,
  answerModels,
  answersFor,
  listReviews,
  questionProvenance,
  type ReviewRow,
  ensureExplanation,
  explanationText,
  findExplanation,
  getExplanation,
  getQuestion,
  replaceExplanationText,
} from '../store/questions.js';
import {buildPrompt, seedOf} from '../core/questions/prompt.js';
import type {AgentQuestionRow, InstanceData, LensScore, QuestionData} from './data-types.js';
import {editText} from '../services/editor.js';
import {auditIdsOf, auditMessages, getAudit, type AuditMessage, type AuditRow} from '../store/audits.js';
import {reasoningLetters, reasoningOf, type StoredMark} from '../store/reasoning.js';
import {reasoningReport, type ReasoningReport} from '../services/reasoning.js';
import {editDocument} from '../core/questions/edit.js';
import {reviewQuestion} from '../services/question-review.js';
import type {EditResult} from '../services/question-revalidate.js';
import {agentNames} from '../store/agents.js';
import {
  countTrajectories,
  getStageString,
  getStepHeads,
  getSteps,
  getTrajectory,
  listTrajectories,
  type StepHead,
  type StepRow,
  type TrajectoryDetail,
  type TrajectoryQuery,
  type TrajectorySummary,
} from '../store/trajectories.js';

/** What the explorer reads: the same store queries the CLI uses, bound to one connection. */
export interface ExplorerData {
  label: string;
  count(query: TrajectoryQuery): number;
  list(query: TrajectoryQuery): TrajectorySummary[];
  trajectory(id: number): TrajectoryDetail | null;
  stepHeads(id: number, offset: number, limit: number): StepHead[];
  /** intent stages of the run's steps, one letter each */
  stages(id: number): string;
  /** the run's code-reasoning marks: one family letter per step ('·' none), and every mark */
  reasoning(id: number): {letters: string; marks: StoredMark[]};
  /** the code-reasoning report (deltalens reasoning report) */
  reasoningReport(): ReasoningReport;
  /** an audit and its transcript */
  audit(id: number): {row: AuditRow; messages: AuditMessage[]} | null;
  /** the ids of the audits of an agent's explanation of an instance, oldest first */
  auditIds(instance: string, agent: string): number[];
  /** starts an audit of a stored run (or of the agent's explanation on the instance) with $DELTALENS_AUDIT_MODEL */
  startAudit(
    target: {trajectory: number} | {instance: string; agent: string},
    onEvent: (text: string) => void,
  ): Promise<AuditRow>;
  /** stops what is running (an audit: its transcript kept, marked incomplete) */
  cancelJobs(): void;
  /** resolves once nothing started here is still running */
  whenIdle(): Promise<void>;
  step(id: number, idx: number): StepRow | null;
  /** traced pairs, or only those of one trajectory's patch */
  pairs(trajectory?: number): PairListRow[];
  stepper(pair: number): StepperModel | {error: string};
  liveWatch(model: StepperModel, row: number, exprs: string[]): Promise<WatchValue[]>;
  models(): string[];
  report(model: string | null): Report;
  agentQuestions(agent: string, explanations: string, model: string | null): AgentQuestionRow[];
  question(id: string, agent: string, explanations: string, explanationId: number | null): QuestionData | null;
  /** how a question was made: its provenance, each choice's validation, and its reviews */
  provenance(id: string): {provenance: unknown; validations: Record<string, unknown>; reviews: ReviewRow[]} | null;
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
  /** $DELTALENS_QA_MODEL, the model r asks unless another is chosen */
  qaModel: string | null;
  /** the text edited in $EDITOR (null: unchanged) */
  edit(text: string): {text: string | null; error?: string};
  /** the agents with runs, by name */
  agents(): string[];
  saveCustom(instance: string, agent: string, text: string): number;
  explanationText(id: number): string | null;
  /** the run's stored lens score, or why it has none */
  lens(id: number): {score: LensScore | null; why: string};
  /** the reference the run is scored against, with its path through it */
  pta(id: number): PtaView | null;
  /** an instance: its record, its runs, traced pairs and questions */
  instance(id: string): InstanceData | null;
  rankings(): ReturnType<typeof lensRankings>;
  /** a person's stage for a step (null removes theirs); returns what was done */
  setStage(id: number, idx: number, stage: string | null): string;
  agreement(): AgreementReport;
  /** people's flags on a question and the automatic ones */
  flags(question: string): {people: FlagRow[]; automatic: AutoFlag[]};
  setFlag(question: string, verdict: string, note: string): string;
}

/** Loaded on first use: the openai package is not needed to draw the explorer. The model is
 * chosen as `score` chooses it (services/qa-models.ts), from the environment. */
export async function liveQaModel(env: NodeJS.ProcessEnv = process.env, name?: string | null): Promise<QaModel> {
  const {explorerQaChoice, qaModelFrom} = await import('../services/qa-models.js');
  const choice = explorerQaChoice(env);
  return qaModelFrom(
    name ? {...choice, model: name} : choice,
    env,
    '(or name another variable in $DELTALENS_QA_KEY_ENV)',
  );
}

export interface PairListRow {
  pair: number;
  instance: string;
  label: string | null;
  test: string;
  buggy: string;
  patched: string;
  delta: string;
}

function pairRows(db: Db, trajectory?: number): PairListRow[] {
  return listPairs(db)
    .filter(p => trajectory === undefined || p.trajectory === trajectory)
    .map(p => {
      const b = p.buggyTrace ? getTrace(db, p.buggyTrace) : null;
      const t = p.patchedTrace ? getTrace(db, p.patchedTrace) : null;
      const d = latestDelta(db, p.id);
      const delta = !d
        ? 'no delta'
        : d.status === 'none'
          ? '∅ no effect'
          : d.status === 'incomplete'
            ? `incomplete: ${d.reason ?? ''}`
            : `${d.kind} · ${d.function}${d.line !== null ? `:${d.line}` : ''}`;
      return {
        pair: p.id,
        instance: p.instance,
        label: p.label,
        test: p.test,
        buggy: b?.outcome?.status ?? b?.status ?? '?',
        patched: t?.outcome?.status ?? t?.status ?? '?',
        delta,
      };
    });
}

/** The explorer reads at most this many characters of one text (a step's observation, a
 * patch): wrapping 4 M characters takes ~0.2 s; the rest is a command away. */
const VIEW_CHARS = 4 * 1024 * 1024;

interface ExplorerOptions {
  /** --no-sandbox: live re-runs may run unconfined */
  noSandbox?: boolean;
  passEnv?: string[];
}

export function storeData(db: Db, label: string, options: ExplorerOptions = {}): ExplorerData {
  const steppers = new Map<number, StepperModel | {error: string}>();
  const reports = new Map<string, Report>();
  // an edit the re-validation refused: the next edit starts from it, so nothing typed is lost
  const refusedEdits = new Map<string, string>();
  // audits running now: Ctrl+C stops them, and the explorer waits for them before it closes the store
  const jobs = new Map<Promise<unknown>, AbortController>();
  return {
    label,
    count: query => countTrajectories(db, query),
    list: query => listTrajectories(db, query),
    trajectory: id => getTrajectory(db, id, VIEW_CHARS),
    stepHeads: (id, offset, limit) => getStepHeads(db, id, offset, limit),
    stages: id => getStageString(db, id),
    step: (id, idx) => getSteps(db, id, idx, 1, VIEW_CHARS)[0] ?? null,
    pairs: trajectory => pairRows(db, trajectory),
    stepper: pair => {
      let model = steppers.get(pair);
      if (!model) {
        model = openStepper(db, pair);
        steppers.set(pair, model);
      }
      return model;
    },
    // execa and the workspace code load on the first live re-run
    liveWatch: async (model, row, exprs) =>
      (await import('../services/live-eval.js')).liveWatch(model, row, exprs, {
        sandbox: options.noSandbox ? 'off' : undefined,
        passEnv: options.passEnv,
        // the screen is Ink's: the warning was given once when the explorer opened
        onWarning: () => {},
      }),
    models: () => answerModels(db).map(m => m.model),
    report: model => {
      const key = model ?? '';
      let r = reports.get(key);
      if (!r) {
        r = buildReport(db, model ? {model} : {});
        reports.set(key, r);
      }
      return r;
    },
    agentQuestions: (agent, explanations, model) =>
      agentQuestions(db, agent, explanations, model).questions.map(q => ({
        question: q.question,
        type: q.type,
        instance: q.instance,
        correct: q.correct,
        total: q.total,
        verdicts: q.samples
          .map(x =>
            x.verdict === 'correct'
              ? '✓'
              : x.verdict === 'uninformative'
                ? '?'
                : x.verdict === 'misaligned'
                  ? '✗'
                  : '·',
          )
          .join(''),
      })),
    question: (id, agent, explanations, explanationId) => {
      const q = getQuestion(db, id);
      if (!q) return null;
      const e =
        explanationId !== null
          ? getExplanation(db, explanationId)
          : findExplanation(db, q.instance, agent, explanations);
      const answers = e ? answersFor(db, id, e.id) : [];
      const prompt = e && e.text !== null ? buildPrompt(q, e.text, seedOf(q.id, e.id, 0)).text : null;
      return {q, explanation: e ?? null, answers, prompt};
    },
    qaModel: process.env.DELTALENS_QA_MODEL || null,
    edit: text => editText(text),
    reasoning: id => ({letters: reasoningLetters(db, id), marks: reasoningOf(db, id)}),
    reasoningReport: () => reasoningReport(db),
    audit: id => {
      const row = getAudit(db, id);
      return row ? {row, messages: auditMessages(db, id)} : null;
    },
    auditIds: (instance, agent) => auditIdsOf(db, instance, agent),
    startAudit: (target, onEvent) => {
      const controller = new AbortController();
      const job = (async () => {
        const {startExplorerAudit} = await import('../services/audit.js');
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
    agents: () => agentNames(db),
    provenance: id => {
      const p = questionProvenance(db, id);
      return p ? {...p, reviews: listReviews(db, id)} : null;
    },
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
      const {saveEditedQuestion} = await import('../services/question-revalidate.js');
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
    saveCustom: (instance, agent, text) => {
      reports.clear();
      return writeTx(db, () => {
        const id = ensureExplanation(db, {instance, agent, kind: 'custom', text, source: 'edited in the explorer'});
        replaceExplanationText(db, id, text);
        return id;
      });
    },
    explanationText: id => explanationText(db, id),
    lens: id => {
      const score = lensScoreOf(db, id);
      if (score) return {score, why: ''};
      const t = getTrajectory(db, id);
      return {score: null, why: t ? whyNotScored(db, t.instance) : 'not scored'};
    },
    pta: id => referenceView(db, id),
    instance: id => {
      const detail = getInstance(db, id);
      if (!detail) return null;
      return {
        detail,
        runs: listTrajectories(db, {instance: id}).map(r => ({
          id: r.id,
          agent: r.agent,
          resolved: r.resolved,
          steps: r.steps,
          format: r.format,
        })),
        pairs: listPairs(db, id).map(p => {
          const d = latestDelta(db, p.id);
          const delta = !d
            ? 'no delta'
            : d.status === 'none'
              ? '∅'
              : d.status === 'incomplete'
                ? 'incomplete'
                : `${d.kind} in ${d.function}`;
          return {id: p.id, label: p.label, test: p.test, delta};
        }),
        questions: listQuestions(db, {instance: id}).map(q => ({id: q.id, type: q.type, agent: q.agent})),
        exclusions: listExclusions(db, id),
      };
    },
    rankings: () => lensRankings(db),
    agreement: () => agreementReport(db),
    flags: question => ({
      people: listFlags(db).filter(f => f.question === question),
      automatic: automaticFlags(db, question),
    }),
    setFlag: (question, verdict, note) => {
      const who = annotatorName();
      setFlag(db, {question, author: who, verdict, note: note || null});
      return `flagged ${verdict}${note ? ' with a note' : ''} as ${who} (deltalens flags lists them)`;
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
  };
}
