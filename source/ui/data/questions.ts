/** The explorer's reader of questions: the leaderboard, an agent's questions, one question with its answers, provenance and flags. */
import type {AutoFlag} from '../../core/questions/annotation.js';
import type {Question} from '../../core/questions/model.js';
import {buildPrompt, seedOf} from '../../core/questions/prompt.js';
import {
  readProvenance,
  readValidations,
  type ChoiceValidation,
  type ReadProvenance,
} from '../../core/questions/provenance.js';
import {agreementReport, automaticFlags, type AgreementReport} from '../../services/annotation.js';
import {agentQuestions, buildReport, type Report} from '../../services/report.js';
import {listFlags, type FlagRow} from '../../store/annotations.js';
import type {Db} from '../../store/db.js';
import {
  answerModels,
  answersFor,
  explanationText,
  findExplanation,
  getExplanation,
  getQuestion,
  listReviews,
  questionProvenance,
  type ReviewRow,
} from '../../store/questions.js';

/** A question with an explanation, its stored answers and the prompt. */
export interface QuestionData {
  q: Question;
  explanation: {id: number; kind: string; text: string | null} | null;
  answers: {
    model: string;
    sample: number;
    letters: string[] | null;
    verdict: string | null;
    raw: string | null;
    order: string[] | null;
  }[];
  prompt: string | null;
}

/** One row of an agent's questions: how often it was answered right. */
export interface AgentQuestionRow {
  question: string;
  type: string;
  instance: string;
  correct: number;
  total: number;
  verdicts: string;
}

export interface QuestionsReader {
  /** the QA models with stored answers */
  models(): string[];
  report(model: string | null): Report;
  agentQuestions(agent: string, explanations: string, model: string | null): AgentQuestionRow[];
  question(id: string, agent: string, explanations: string, explanationId: number | null): QuestionData | null;
  /** how a question was made: its provenance (checked as its type's), each choice's validation, and its reviews */
  provenance(
    id: string,
  ): {provenance: ReadProvenance; validations: Record<string, ChoiceValidation>; reviews: ReviewRow[]} | null;
  /** people's flags on a question and the automatic ones */
  flags(question: string): {people: FlagRow[]; automatic: AutoFlag[]};
  agreement(): AgreementReport;
  explanationText(id: number): string | null;
}

/** The leaderboards read so far, by model; every effect that changes answers or questions clears it. */
export class ReportCache {
  private readonly reports = new Map<string, Report>();
  constructor(private readonly db: Db) {}
  get(model: string | null): Report {
    const key = model ?? '';
    let r = this.reports.get(key);
    if (!r) {
      r = buildReport(this.db, model ? {model} : {});
      this.reports.set(key, r);
    }
    return r;
  }
  clear(): void {
    this.reports.clear();
  }
}

export function questionsReader(db: Db, reports: ReportCache): QuestionsReader {
  return {
    models: () => answerModels(db).map(m => m.model),
    report: model => reports.get(model),
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
    provenance: id => {
      const q = getQuestion(db, id);
      const p = q ? questionProvenance(db, id) : null;
      return q && p
        ? {
            provenance: readProvenance(q.type, p.provenance),
            validations: readValidations(p.validations),
            reviews: listReviews(db, id),
          }
        : null;
    },
    flags: question => ({
      people: listFlags(db).filter(f => f.question === question),
      automatic: automaticFlags(db, question),
    }),
    agreement: () => agreementReport(db),
    explanationText: id => explanationText(db, id),
  };
}
