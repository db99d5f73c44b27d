/**
 * `deltalens report`: explanation scores per agent from the stored answers of one QA model
 * (Table 3 per-type scores and S_exp ± SEM, Table 4 misaligned / not-informative, Table 5
 * overconfidence, Table 6 audited vs original), beside the statistics a benchmark published
 * with its results (over all its instances), and a check of the stored answers against the
 * published per-instance correctness.
 */
import {QUESTION_TYPES, type QuestionType} from '../core/questions/model.js';
import {explanationScores, mean, overconfidence, ranks, sem, type AgentScore} from '../core/scoring/metrics.js';
import type {Db} from '../store/db.js';
import {
  answerModels,
  answerPositions,
  blankCorrect,
  listAnswers,
  listPublished,
  listQuestions,
  rejectedQuestions,
  type PublishedMetric,
} from '../store/questions.js';
import {resolvedById, resolvedRunsOf} from '../store/trajectories.js';
import {CHOICES_ONLY} from './scoring.js';

export interface ReportAgent {
  agent: string;
  explanations: string;
  types: Record<
    QuestionType,
    {
      score: number | null;
      sem: number | null;
      n: number;
      misaligned: number | null;
      uninformative: number | null;
      unparseable: number;
    }
  >;
  s_exp: number | null;
  s_exp_sem: number | null;
  runs: number;
  missing_types: QuestionType[];
  efficacy: number | null;
  rank_explanation: number | null;
  rank_efficacy: number | null;
  rank_shift: number | null;
  overconfidence: {not_passing: number; share: number | null; resolved_from: string} | null;
  gain_vs_original?: Record<QuestionType | 's_exp', number | null>;
}

interface PublishedRow {
  agent: string;
  explanations: string;
  model: string;
  types: Record<QuestionType, number | null>;
  s_exp: number | null;
  s_exp_sem: number | null;
  s_exp_sem_note?: string;
  gain_vs_original?: Record<QuestionType | 's_exp', number | null>;
}

interface ModelArtifacts {
  model: string;
  baseline: boolean;
  answers: number;
  accuracy: number | null;
  /** accuracy by the position of the (first) key letter among the options as shown */
  position_bias: {position: string; n: number; accuracy: number | null}[];
}

export interface Report {
  artifacts: {
    models: ModelArtifacts[];
    blank_correct: {question: string; model: string; correct: number; of: number}[];
  };
  model: string | null;
  models: {model: string; answers: number}[];
  agents: ReportAgent[];
  published: PublishedRow[];
  checks: {published_per_instance: {compared: number; agree: number; disagreements: string[]}};
  /** questions left out of the scores (--exclude-flagged), by reason, like ExplainBench Table 2 */
  exclusions: {
    questions: number;
    answers: number;
    by_reason: {reason: string; questions: number; answers: number}[];
  } | null;
  notes: string[];
}

function round(x: number | null, digits = 4): number | null {
  return x === null ? null : Math.round(x * 10 ** digits) / 10 ** digits;
}

function gains<T extends {types: Record<QuestionType, number | null>; s: number | null}>(
  audited: T,
  original: T | undefined,
): Record<QuestionType | 's_exp', number | null> {
  const g = (a: number | null, o: number | null | undefined) =>
    a === null || o === null || o === undefined || o === 0 ? null : round((a - o) / o);
  const out = {} as Record<QuestionType | 's_exp', number | null>;
  for (const t of QUESTION_TYPES) out[t] = g(audited.types[t], original?.types[t]);
  out.s_exp = g(audited.s, original?.s);
  return out;
}

const isBaseline = (m: string) => m === 'lexical' || m.endsWith(CHOICES_ONLY);

/** The non-baseline model with the most stored answers (a baseline only when it is alone). */
export function defaultModel(db: Db): string | null {
  const models = answerModels(db);
  return models.find(m => !isBaseline(m.model))?.model ?? models[0]?.model ?? null;
}

export function buildReport(db: Db, options: {model?: string; exclude?: Map<string, string[]>} = {}): Report {
  const models = answerModels(db);
  const model = options.model ?? defaultModel(db);
  const notes: string[] = [];
  const all = model ? listAnswers(db, model) : [];
  const exclude = options.exclude ?? new Map<string, string[]>();
  // an author's rejection of a built question takes it out of every score
  const rejected = rejectedQuestions(db);
  const answers = all.filter(a => !exclude.has(a.question) && !rejected.has(a.question));
  const rejectedAnswers = all.filter(a => rejected.has(a.question)).length;
  if (rejected.size)
    notes.push(
      `${rejected.size} rejected built question(s) and their ${rejectedAnswers} answer(s) are left out of the scores (questions review)`,
    );
  let exclusions: Report['exclusions'] = null;
  if (options.exclude) {
    const reasons = [...new Set([...exclude.values()].flat())].sort();
    const left = all.filter(a => exclude.has(a.question));
    exclusions = {
      questions: exclude.size,
      answers: left.length,
      by_reason: reasons.map(reason => {
        const qs = [...exclude].filter(([, r]) => r.includes(reason)).map(([q]) => q);
        return {reason, questions: qs.length, answers: left.filter(a => qs.includes(a.question)).length};
      }),
    };
    notes.push(
      `${exclude.size} flagged question(s) and their ${left.length} answer(s) are left out of the scores (a question with several reasons counts under each)`,
    );
  }
  const scores: AgentScore[] = explanationScores(answers);
  const questions = new Map(listQuestions(db).map(q => [q.id, q]));

  // efficacy: resolved rate of the agent's stored runs on the same instances
  const efficacyOf = (agent: string, instances: Set<string>): number | null => {
    if (!instances.size) return null;
    const hit = resolvedRunsOf(db, agent).filter(r => instances.has(r.instance));
    return hit.length ? hit.filter(r => r.resolved).length / hit.length : null;
  };

  const runResolved = resolvedById(db);
  const agents: ReportAgent[] = scores.map(s => {
    const mine = answers.filter(a => a.agent === s.agent && a.explanations === s.explanations);
    const instances = new Set(mine.map(a => a.instance));
    // overconfidence: e2e effect answers on patches whose test does not pass afterwards
    // resolved: the run's own status where a stored run is known, else the key (the test does
    // not pass after the patch); the report says which it used
    const effect = mine.filter(a => a.type === 'e2e_effect');
    let fromRuns = 0;
    const items = effect.map(a => {
      const q = questions.get(a.question)!;
      const passText = (label: string | undefined) => q.choices.find(c => c.label === label)?.text ?? '';
      const run = q.trajectory !== null ? (runResolved.get(q.trajectory) ?? null) : null;
      if (run !== null) fromRuns += 1;
      return {
        question: a.question,
        resolved: run ?? /test passed/i.test(passText(q.answer[1])),
        predictsPass: a.letters ? /test passed/i.test(passText(a.letters[1])) : null,
      };
    });
    const oc = effect.length ? overconfidence(items) : null;
    const resolvedFrom =
      fromRuns === 0
        ? 'the key: whether the test passes after the patch'
        : fromRuns === effect.length
          ? "the runs' resolved status"
          : `the runs' resolved status for ${fromRuns} of ${effect.length} answers, else the key`;
    return {
      agent: s.agent,
      explanations: s.explanations,
      types: Object.fromEntries(
        QUESTION_TYPES.map(t => [
          t,
          {
            score: round(s.types[t].score),
            sem: round(s.types[t].sem),
            n: s.types[t].n,
            misaligned: round(s.types[t].misaligned),
            uninformative: round(s.types[t].uninformative),
            unparseable: s.types[t].unparseable,
          },
        ]),
      ) as ReportAgent['types'],
      s_exp: round(s.sExp),
      s_exp_sem: round(s.sExpSem),
      runs: s.runs,
      missing_types: s.missingTypes,
      efficacy: round(efficacyOf(s.agent, instances)),
      rank_explanation: null,
      rank_efficacy: null,
      rank_shift: null,
      overconfidence: oc && {not_passing: oc.notPassing, share: round(oc.share), resolved_from: resolvedFrom},
    };
  });
  for (const kind of new Set(agents.map(a => a.explanations))) {
    const group = agents.filter(a => a.explanations === kind);
    const re = ranks(group.map(a => a.s_exp));
    const rf = ranks(group.map(a => a.efficacy));
    group.forEach((a, i) => {
      a.rank_explanation = re[i]!;
      a.rank_efficacy = rf[i]!;
      a.rank_shift = re[i] !== null && rf[i] !== null ? rf[i]! - re[i]! : null;
    });
  }
  for (const a of agents.filter(x => x.explanations === 'audited')) {
    const o = agents.find(x => x.agent === a.agent && x.explanations === 'original');
    const pick = (r: ReportAgent) => ({
      types: Object.fromEntries(QUESTION_TYPES.map(t => [t, r.types[t].score])) as Record<QuestionType, number | null>,
      s: r.s_exp,
    });
    a.gain_vs_original = gains(pick(a), o && pick(o));
  }
  if (agents.some(a => a.efficacy === null))
    notes.push(
      'efficacy is the resolved rate of stored runs of the agent on the same instances; agents without stored runs have none',
    );

  // published statistics (the authors', over all their instances)
  const published = listPublished(db).filter(p => !model || p.model === model);
  const byRun = new Map<string, PublishedMetric[]>();
  for (const p of published) {
    const key = `${p.agent}\u0000${p.explanations}\u0000${p.model}`;
    byRun.set(key, [...(byRun.get(key) ?? []), p]);
  }
  const pubRows: PublishedRow[] = [...byRun.values()].map(list => {
    const types = Object.fromEntries(
      QUESTION_TYPES.map(t => [t, round(list.find(p => p.type === t)?.mean ?? null)]),
    ) as Record<QuestionType, number | null>;
    const present = QUESTION_TYPES.map(t => list.find(p => p.type === t)?.mean).filter(
      (v): v is number => typeof v === 'number',
    );
    const runVals = QUESTION_TYPES.map(t => list.find(p => p.type === t)?.runValues ?? null);
    let sExpSem: number | null = null;
    let note: string | undefined;
    if (runVals.every(v => v !== null && v.length === runVals[0]!.length)) {
      const perRun = runVals[0]!.map((_, i) => mean(runVals.map(v => v![i]!))!);
      sExpSem = round(sem(perRun));
    } else {
      note = 'S_exp ± SEM needs per-run values of every type; the published local statistics give only mean and SEM';
    }
    return {
      agent: list[0]!.agent,
      explanations: list[0]!.explanations,
      model: list[0]!.model,
      types,
      s_exp: present.length === QUESTION_TYPES.length ? round(mean(present)) : null,
      s_exp_sem: sExpSem,
      ...(note ? {s_exp_sem_note: note} : {}),
    };
  });
  for (const a of pubRows.filter(x => x.explanations === 'audited')) {
    const o = pubRows.find(x => x.agent === a.agent && x.explanations === 'original');
    a.gain_vs_original = gains({types: a.types, s: a.s_exp}, o && {types: o.types, s: o.s_exp});
  }

  // the stored answers against the published per-instance correctness
  let compared = 0;
  let agree = 0;
  const disagreements: string[] = [];
  for (const p of published) {
    for (const [instance, values] of Object.entries(p.perInstance ?? {})) {
      const mine = answers.filter(
        a => a.type === p.type && a.agent === p.agent && a.explanations === p.explanations && a.instance === instance,
      );
      values.forEach((v, sample) => {
        const ours = mine.find(a => a.sample === sample);
        if (!ours) return;
        compared += 1;
        if ((ours.verdict === 'correct') === Boolean(v)) agree += 1;
        else
          disagreements.push(
            `${p.type} ${p.agent} (${p.explanations}) ${instance} sample ${sample}: published ${v}, stored ${ours.verdict ?? 'unparseable'}`,
          );
      });
    }
  }
  // artifact checks: every model's accuracy by key position (position bias), baselines marked;
  // questions that a blank explanation answers correctly (a question-quality defect)
  const perm = answerPositions(db);
  const LETTERS = 'ABCDEFGHIJ';
  const artifacts: ModelArtifacts[] = models.map(({model: m}) => {
    const rows = perm.filter(r => r.model === m);
    const byPos = new Map<string, {n: number; ok: number}>();
    for (const r of rows) {
      const q = questions.get(r.question);
      if (!q) continue;
      const order = r.permutation ? (JSON.parse(r.permutation) as string[]) : q.choices.map(c => c.label);
      const pos = LETTERS[order.indexOf(q.answer[0]!)] ?? '?';
      const b = byPos.get(pos) ?? {n: 0, ok: 0};
      b.n += 1;
      if (r.verdict === 'correct') b.ok += 1;
      byPos.set(pos, b);
    }
    return {
      model: m,
      baseline: isBaseline(m),
      answers: rows.length,
      accuracy: rows.length ? round(rows.filter(r => r.verdict === 'correct').length / rows.length) : null,
      position_bias: [...byPos]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([position, b]) => ({position, n: b.n, accuracy: round(b.ok / b.n)})),
    };
  });
  const blank = blankCorrect(db);
  if (blank.length)
    notes.push(
      `${blank.length} questions are answered correctly from a blank explanation (see artifacts.blank_correct): a question-quality defect`,
    );
  return {
    artifacts: {
      models: artifacts,
      blank_correct: blank.map(b => ({question: b.question, model: b.model, correct: b.correct, of: b.n})),
    },
    model,
    models,
    agents,
    published: pubRows,
    checks: {published_per_instance: {compared, agree, disagreements: disagreements.slice(0, 20)}},
    exclusions,
    notes,
  };
}

/** One question an agent's explanation was scored on: every sample's verdict, in sample order. */
interface AgentQuestion {
  question: string;
  type: string;
  instance: string;
  correct: number;
  total: number;
  /** per sample, per model answer order: correct | misaligned | uninformative | null (unparseable) */
  samples: {sample: number; letters: string[] | null; verdict: string | null}[];
}

/**
 * The questions an agent's explanations (of one kind) were scored on by a model (default: the
 * report's), with every sample's verdict: the leaderboard's drill-down, and `report --agent`.
 */
export function agentQuestions(
  db: Db,
  agent: string,
  explanations: string,
  model: string | null,
): {model: string | null; questions: AgentQuestion[]} {
  const m = model ?? defaultModel(db);
  const rows = new Map<string, AgentQuestion>();
  for (const a of listAnswers(db, m ?? undefined)) {
    if (a.agent !== agent || a.explanations !== explanations) continue;
    const r = rows.get(a.question) ?? {
      question: a.question,
      type: a.type,
      instance: a.instance,
      correct: 0,
      total: 0,
      samples: [],
    };
    r.total += 1;
    if (a.verdict === 'correct') r.correct += 1;
    r.samples.push({sample: a.sample, letters: a.letters, verdict: a.verdict});
    rows.set(a.question, r);
  }
  for (const r of rows.values()) r.samples.sort((x, y) => x.sample - y.sample);
  return {
    model: m,
    questions: [...rows.values()].sort((x, y) => x.type.localeCompare(y.type) || x.instance.localeCompare(y.instance)),
  };
}
