/**
 * Annotation sessions, adjudication, agreement and question flags over the store (issue 6).
 * The annotate/adjudicate screens and the commands call these same functions.
 */
import {readFileSync} from 'node:fs';
import {userInfo} from 'node:os';
import {
  autoFlags,
  buildQueue,
  itemKey,
  labelOf,
  majority,
  type AnnotationItem,
  type AutoFlag,
  type ItemLabels,
  type Queue,
} from '../core/questions/annotation.js';
import type {QuestionType} from '../core/questions/model.js';
import {cohenKappa, fleissKappa} from '../core/scoring/agreement.js';
import {
  flaggedQuestions,
  listAdjudications,
  listAnnotations,
  saveAnnotation,
  type AnnotationRow,
  type NewAnnotation,
} from '../store/annotations.js';
import {writeTx, type Db} from '../store/db.js';
import {
  answerModels,
  explanationText,
  getQuestion,
  listAnswers,
  listExplanations,
  listQuestions,
} from '../store/questions.js';
import {defaultModel} from './report.js';
import {applies, CHOICES_ONLY} from './scoring.js';

/** Who labels, corrects, flags or reviews: $DELTALENS_ANNOTATOR, else the login name. */
export function annotatorName(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DELTALENS_ANNOTATOR?.trim()) return env.DELTALENS_ANNOTATOR.trim();
  try {
    return userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Every item people can label: questions × the explanations (with text) they are asked about. */
export function annotationItems(db: Db, filter: {type?: QuestionType; agent?: string} = {}): AnnotationItem[] {
  const explanations = listExplanations(db).filter(
    e => e.hasText && e.kind !== 'blank' && (!filter.agent || e.agent === filter.agent),
  );
  const out: AnnotationItem[] = [];
  for (const q of listQuestions(db, filter.type ? {type: filter.type} : {})) {
    for (const e of explanations)
      if (applies(q, e))
        out.push({question: q.id, explanation: e.id, type: q.type, instance: q.instance, agent: e.agent});
  }
  return out;
}

/** Pushes value onto the list at key. */
function push<K, V>(m: Map<K, V[]>, key: K, value: V): void {
  const list = m.get(key);
  if (list) list.push(value);
  else m.set(key, [value]);
}

/** A model's sample labels per item (answers that could not be read are left out). */
function samplesByItem(db: Db, model: string, question?: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const x of listAnswers(db, model, question)) if (x.letters) push(out, itemKey(x), labelOf(x.letters));
  return out;
}

/** People's labels per item. */
function peopleByItem(db: Db): Map<string, AnnotationRow[]> {
  const out = new Map<string, AnnotationRow[]>();
  for (const a of listAnnotations(db)) push(out, itemKey(a), a);
  return out;
}

/** People's labels and the QA model's majority, per item. */
function itemLabels(db: Db, model: string | null = defaultModel(db)): Map<string, ItemLabels> {
  const out = new Map<string, ItemLabels>();
  const get = (k: string) => {
    let v = out.get(k);
    if (!v) out.set(k, (v = {human: [], modelMajority: null}));
    return v;
  };
  for (const a of listAnnotations(db)) get(itemKey(a)).human.push({annotator: a.annotator, label: labelOf(a.letters)});
  if (model) for (const [k, labels] of samplesByItem(db, model)) get(k).modelMajority = majority(labels);
  return out;
}

interface SessionOptions {
  annotator: string;
  queue: Queue;
  type?: QuestionType;
  agent?: string;
  seed?: number;
}

export function sessionQueue(db: Db, o: SessionOptions): AnnotationItem[] {
  return buildQueue(
    annotationItems(db, {type: o.type, agent: o.agent}),
    itemLabels(db),
    o.queue,
    o.annotator,
    o.seed ?? 0,
  );
}

/** What a person sees of an item while labelling: no answer key, no model answers, no one else's label. */
export interface BlindItem {
  question: string;
  explanation: number;
  type: QuestionType;
  instance: string;
  agent: string | null;
  text: string;
  context: Record<string, unknown>;
  choices: {label: string; text: string}[];
  explanationText: string;
  /** who else labelled this item (names only: their letters are never shown while labelling) */
  others: string[];
}

export function blindItem(db: Db, item: AnnotationItem, annotator?: string): BlindItem | null {
  const q = getQuestion(db, item.question);
  const e = explanationText(db, item.explanation);
  if (!q || e === null) return null;
  return {
    question: q.id,
    explanation: item.explanation,
    type: q.type,
    instance: q.instance,
    agent: item.agent,
    text: q.question,
    context: q.context,
    choices: q.choices.map(c => ({label: c.label, text: c.text})),
    explanationText: e,
    others: [
      ...new Set(
        listAnnotations(db, {question: item.question, explanation: item.explanation})
          .map(a => a.annotator)
          .filter(name => name !== annotator),
      ),
    ].sort(),
  };
}

/** An item with conflicting people's labels, everything about it, for the adjudicator. */
export interface ConflictItem {
  item: AnnotationItem;
  labels: AnnotationRow[];
  /** every stored model's answers on the item */
  models: {model: string; samples: string[]; majority: string | null}[];
  key: string[];
  adjudicated: {adjudicator: string; letters: string[]; note: string | null} | null;
}

export function conflicts(db: Db, o: {includeAdjudicated?: boolean} = {}): ConflictItem[] {
  const items = new Map(annotationItems(db).map(i => [itemKey(i), i]));
  const adjudicated = new Map(listAdjudications(db).map(a => [itemKey(a), a]));
  const questions = new Map(listQuestions(db).map(q => [q.id, q]));
  // every model's sample labels per item, read once
  const answers = new Map<string, Map<string, string[]>>();
  for (const x of listAnswers(db)) {
    if (!x.letters) continue;
    let byModel = answers.get(itemKey(x));
    if (!byModel) answers.set(itemKey(x), (byModel = new Map()));
    push(byModel, x.model, labelOf(x.letters));
  }
  const out: ConflictItem[] = [];
  for (const [k, labels] of peopleByItem(db)) {
    if (new Set(labels.map(l => labelOf(l.letters))).size < 2) continue;
    const adj = adjudicated.get(k) ?? null;
    if (adj && !o.includeAdjudicated) continue;
    const item = items.get(k);
    if (!item) continue;
    out.push({
      item,
      labels,
      models: [...(answers.get(k) ?? [])].map(([model, samples]) => ({model, samples, majority: majority(samples)})),
      key: questions.get(item.question)!.answer,
      adjudicated: adj && {adjudicator: adj.adjudicator, letters: adj.letters, note: adj.note},
    });
  }
  return out.sort(
    (a, b) =>
      a.item.instance.localeCompare(b.item.instance) ||
      a.item.question.localeCompare(b.item.question) ||
      a.item.explanation - b.item.explanation,
  );
}

interface PairAgreement {
  a: string;
  b: string;
  n: number;
  raw: number | null;
  cohen_kappa: number | null;
}

export interface AgreementReport {
  annotators: string[];
  items_labelled: number;
  pairs: PairAgreement[];
  fleiss_kappa: number | null;
  fleiss: {n: number; raters: number; left_out: number; raw: number | null};
  by_type: Record<string, {pairs: PairAgreement[]; fleiss_kappa: number | null; items: number}>;
  human_vs_model: {
    annotator: string;
    model: string;
    baseline: boolean;
    n: number;
    raw: number | null;
    cohen_kappa: number | null;
    by_type: Record<string, {n: number; cohen_kappa: number | null}>;
  }[];
  human_vs_adjudicated: {
    annotator: string;
    n: number;
    raw: number | null;
    cohen_kappa: number | null;
    by_type: Record<string, {n: number; cohen_kappa: number | null}>;
  }[];
  notes: string[];
}

type Labelled = {item: string; type: string; label: string};

function pairsOf(byAnnotator: Map<string, Labelled[]>, keep: (l: Labelled) => boolean = () => true): PairAgreement[] {
  const names = [...byAnnotator.keys()].sort();
  const out: PairAgreement[] = [];
  for (let i = 0; i < names.length; i += 1) {
    for (let j = i + 1; j < names.length; j += 1) {
      const a = new Map(
        byAnnotator
          .get(names[i]!)!
          .filter(keep)
          .map(l => [l.item, l.label]),
      );
      const common = byAnnotator
        .get(names[j]!)!
        .filter(keep)
        .filter(l => a.has(l.item));
      const k = cohenKappa(
        common.map(l => a.get(l.item)!),
        common.map(l => l.label),
      );
      out.push({a: names[i]!, b: names[j]!, n: k.n, raw: k.raw, cohen_kappa: k.cohen_kappa});
    }
  }
  return out;
}

/** Human–human (Cohen per pair, Fleiss over all), human–model and human–adjudicated agreement, per question type. */
export function agreementReport(db: Db): AgreementReport {
  const questions = new Map(listQuestions(db).map(q => [q.id, q]));
  const typeOf = (question: string) => questions.get(question)?.type ?? 'unknown';
  const byAnnotator = new Map<string, Labelled[]>();
  const byItem = new Map<string, Labelled[]>();
  for (const a of listAnnotations(db)) {
    const l = {item: itemKey(a), type: typeOf(a.question), label: labelOf(a.letters)};
    push(byAnnotator, a.annotator, l);
    push(byItem, l.item, l);
  }
  const types = [...new Set([...byItem.values()].flat().map(l => l.type))].sort();
  const fleiss = fleissKappa([...byItem.values()].map(ls => ls.map(l => l.label)));
  const by_type = Object.fromEntries(
    types.map(t => {
      const items = [...byItem.values()].filter(ls => ls[0]!.type === t);
      return [
        t,
        {
          pairs: pairsOf(byAnnotator, l => l.type === t),
          fleiss_kappa: fleissKappa(items.map(ls => ls.map(l => l.label))).fleiss_kappa,
          items: items.length,
        },
      ];
    }),
  );
  const human_vs_model: AgreementReport['human_vs_model'] = [];
  for (const {model} of answerModels(db)) {
    const samples = samplesByItem(db, model);
    const majorityOf = new Map(
      [...samples].map(([k, v]) => [k, majority(v)] as const).filter((e): e is [string, string] => e[1] !== null),
    );
    for (const [annotator, labels] of [...byAnnotator].sort(([a], [b]) => a.localeCompare(b))) {
      const common = labels.filter(l => majorityOf.has(l.item));
      if (!common.length) continue;
      const k = cohenKappa(
        common.map(l => l.label),
        common.map(l => majorityOf.get(l.item)!),
      );
      human_vs_model.push({
        annotator,
        model,
        baseline: model === 'lexical' || model.endsWith(CHOICES_ONLY),
        n: k.n,
        raw: k.raw,
        cohen_kappa: k.cohen_kappa,
        by_type: Object.fromEntries(
          types.map(t => {
            const c = common.filter(l => l.type === t);
            return [
              t,
              {
                n: c.length,
                cohen_kappa: cohenKappa(
                  c.map(l => l.label),
                  c.map(l => majorityOf.get(l.item)!),
                ).cohen_kappa,
              },
            ];
          }),
        ),
      });
    }
  }
  const adjudicated = new Map(listAdjudications(db).map(a => [itemKey(a), labelOf(a.letters)]));
  const human_vs_adjudicated = [...byAnnotator]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([annotator, labels]) => {
      const common = labels.filter(l => adjudicated.has(l.item));
      const kappa = (ls: Labelled[]) =>
        cohenKappa(
          ls.map(l => l.label),
          ls.map(l => adjudicated.get(l.item)!),
        );
      const k = kappa(common);
      const by_type = Object.fromEntries(
        types.map(t => {
          const c = common.filter(l => l.type === t);
          return [t, {n: c.length, cohen_kappa: kappa(c).cohen_kappa}];
        }),
      );
      return {annotator, n: k.n, raw: k.raw, cohen_kappa: k.cohen_kappa, by_type};
    });
  const notes = [
    "labels are categories: one letter, or 'before,after' for end-to-end effect",
    "human_vs_model compares each person with the majority of the model's samples on the same items (items where the samples tie are left out)",
    byAnnotator.size < 2
      ? `agreement between people needs two people labelling the same items; only ${[...byAnnotator.keys()].join(', ') || 'nobody'} has labelled, so pairs and fleiss_kappa are empty (human_vs_model still compares that person with the models)`
      : `fleiss_kappa uses the items labelled by ${fleiss.raters || 'the same number of'} people${fleiss.left_out ? ` (${fleiss.left_out} items with another number of labels left out)` : ''}`,
  ];
  return {
    annotators: [...byAnnotator.keys()].sort(),
    items_labelled: byItem.size,
    pairs: pairsOf(byAnnotator),
    fleiss_kappa: fleiss.fleiss_kappa,
    fleiss: {n: fleiss.n, raters: fleiss.raters, left_out: fleiss.left_out, raw: fleiss.raw},
    by_type,
    human_vs_model,
    human_vs_adjudicated,
    notes,
  };
}

/**
 * The automatic flags: from blank explanations, the lexical baseline, and models that every
 * person contradicts — of every question, or of one (the explorer's question screen).
 */
export function automaticFlags(db: Db, question?: string): AutoFlag[] {
  const explanations = new Map(listExplanations(db).map(e => [e.id, e]));
  const answers = listAnswers(db, undefined, question);
  const people = peopleByItem(db);
  const main = defaultModel(db);
  const byQuestion = new Map<string, typeof answers>();
  for (const x of answers) push(byQuestion, x.question, x);
  const out: AutoFlag[] = [];
  for (const q of question
    ? [getQuestion(db, question)].filter((x): x is NonNullable<typeof x> => x !== null)
    : listQuestions(db)) {
    const own = byQuestion.get(q.id) ?? [];
    const verdicts = (filter: (x: (typeof own)[number]) => boolean) => {
      const m = new Map<string, {model: string; explanation: number; correct: number; all: number}>();
      for (const x of own.filter(filter)) {
        const k = `${x.model}\u0000${x.explanation}`;
        const v = m.get(k) ?? {model: x.model, explanation: x.explanation, correct: 0, all: 0};
        v.all += 1;
        if (x.verdict === 'correct') v.correct += 1;
        m.set(k, v);
      }
      return [...m.values()].map(v => ({...v, majorityCorrect: v.correct * 2 > v.all}));
    };
    const blank = verdicts(x => explanations.get(x.explanation)?.kind === 'blank' && !x.model.endsWith(CHOICES_ONLY));
    const lexical = verdicts(x => x.model === 'lexical' && explanations.get(x.explanation)?.kind === 'original');
    const samples = new Map<number, string[]>();
    if (main) for (const x of own) if (x.model === main && x.letters) push(samples, x.explanation, labelOf(x.letters));
    out.push(
      ...autoFlags({
        question: q.id,
        blank: blank.map(b => ({model: b.model, correct: b.majorityCorrect})),
        lexical: lexical.map(l => ({explanation: l.explanation, correct: l.majorityCorrect})),
        items: [...samples].map(([explanation, s]) => ({
          explanation,
          model: main!,
          samples: s,
          human: (people.get(itemKey({question: q.id, explanation})) ?? []).map(a => labelOf(a.letters)),
        })),
      }),
    );
  }
  return out;
}

/** One annotation line of the interchange format (JSONL), with the ids `questions list --json` and `explanations list --json` print. */
type AnnotationLine = Omit<NewAnnotation, 'origin'>;

export function exportAnnotations(db: Db, format: 'jsonl' | 'csv'): string {
  const rows = listAnnotations(db);
  if (format === 'jsonl')
    return rows
      .map(
        r =>
          `${JSON.stringify({question: r.question, explanation: r.explanation, annotator: r.annotator, letters: r.letters, rationale: r.rationale, seconds: r.seconds, created_at: r.created_at})}\n`,
      )
      .join('');
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [
    'question,explanation,annotator,letters,rationale,seconds,created_at',
    ...rows.map(r =>
      [r.question, r.explanation, r.annotator, r.letters.join(' '), r.rationale, r.seconds, r.created_at]
        .map(cell)
        .join(','),
    ),
  ]
    .map(l => `${l}\n`)
    .join('');
}

interface ImportResult {
  added: number;
  updated: number;
  unchanged: number;
}

/**
 * Imports a JSONL file of labels made elsewhere: all or nothing (a bad line names its line and
 * field and imports nothing); a label already stored with the same letters and rationale is
 * unchanged, so importing twice changes nothing.
 */
export function importAnnotations(db: Db, file: string): ImportResult {
  const text = readFileSync(file, 'utf8');
  const lines: (AnnotationLine & {line: number})[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (!raw.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch (error) {
      throw new RangeError(`${file}:${i + 1}: not JSON (${(error as Error).message})`);
    }
    const o = v as Record<string, unknown>;
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw new RangeError(`${file}:${i + 1}: a line must be a JSON object`);
    const missing = ['question', 'explanation', 'annotator', 'letters'].find(k => o[k] === undefined);
    if (missing) throw new RangeError(`${file}:${i + 1}: field "${missing}" is missing`);
    if (typeof o.question !== 'string') throw new RangeError(`${file}:${i + 1}: field "question" must be a string`);
    if (!Number.isInteger(o.explanation))
      throw new RangeError(`${file}:${i + 1}: field "explanation" must be an explanation id (a whole number)`);
    if (typeof o.annotator !== 'string' || !o.annotator.trim())
      throw new RangeError(`${file}:${i + 1}: field "annotator" must be a name`);
    lines.push({
      question: o.question,
      explanation: o.explanation as number,
      annotator: o.annotator,
      letters: o.letters as string[],
      rationale: (o.rationale as string | null | undefined) ?? null,
      seconds: (o.seconds as number | null | undefined) ?? null,
      line: i + 1,
    });
  });
  const result: ImportResult = {added: 0, updated: 0, unchanged: 0};
  writeTx(db, () => {
    for (const l of lines) {
      const before = listAnnotations(db, {annotator: l.annotator, question: l.question, explanation: l.explanation})[0];
      if (
        before &&
        JSON.stringify(before.letters) === JSON.stringify(l.letters) &&
        (before.rationale ?? null) === (l.rationale ?? null)
      ) {
        result.unchanged += 1;
        continue;
      }
      try {
        saveAnnotation(db, {...l, origin: file});
      } catch (error) {
        throw new RangeError(`${file}:${l.line}: ${(error as Error).message}`);
      }
      if (before) result.updated += 1;
      else result.added += 1;
    }
  });
  return result;
}

/**
 * The questions to leave out of scores: those people flagged with anything but "valid" and,
 * with `auto`, those the automatic flags name — each with its reasons (people's verdicts, or
 * "auto:<reason>").
 */
export function exclusions(db: Db, o: {people?: boolean; auto?: boolean} = {people: true}): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (o.people !== false) for (const [q, verdicts] of flaggedQuestions(db)) out.set(q, [...new Set(verdicts)]);
  if (o.auto)
    for (const f of automaticFlags(db))
      out.set(f.question, [...new Set([...(out.get(f.question) ?? []), `auto:${f.reason}`])]);
  return out;
}

const k3 = (x: number | null) => (x === null ? '—' : x.toFixed(3));
const pct = (x: number | null) => (x === null ? '—' : `${Math.round(x * 100)}%`);

/** The agreement figures as text lines, the same for `deltalens agreement` and the explorer's agreement screen. */
export function agreementText(r: AgreementReport): {text: string; role?: 'heading' | 'muted'}[] {
  if (!r.items_labelled)
    return [
      {
        text: 'No labels yet: deltalens annotate --annotator NAME (or deltalens annotations import FILE).',
        role: 'muted',
      },
    ];
  const row = (name: string, width: number, n: number, raw: number | null, kappa: number | null) =>
    `${name.padEnd(width)} ${String(n).padStart(5)}  ${pct(raw).padStart(4)}  ${k3(kappa).padStart(6)}`;
  const lines: {text: string; role?: 'heading' | 'muted'}[] = [
    {text: `${r.items_labelled} items labelled by ${r.annotators.length} people: ${r.annotators.join(', ')}`},
    {
      text:
        r.annotators.length < 2
          ? `κ between people: none — it needs two people on the same items (only ${r.annotators.join(', ')} so far)`
          : `Fleiss' κ ${k3(r.fleiss_kappa)} over ${r.fleiss.n} items with ${r.fleiss.raters} labels each${r.fleiss.left_out ? ` (${r.fleiss.left_out} left out)` : ''}`,
    },
    {text: ''},
    {text: `${'people, pairwise'.padEnd(30)} items   raw      κ`, role: 'heading'},
    ...r.pairs.map(p => ({text: row(`${p.a} – ${p.b}`, 30, p.n, p.raw, p.cohen_kappa)})),
    {text: ''},
    {text: `${'by question type'.padEnd(30)} items  Fleiss κ`, role: 'heading'},
    ...Object.entries(r.by_type).map(([t, v]) => ({
      text: `${t.padEnd(30)} ${String(v.items).padStart(5)}  ${k3(v.fleiss_kappa).padStart(8)}   pairs ${v.pairs.map(p => k3(p.cohen_kappa)).join(' ')}`,
    })),
    {text: ''},
    {text: `${'person vs model majority'.padEnd(44)} items   raw      κ`, role: 'heading'},
    ...r.human_vs_model.map(h => ({
      text: row(`${h.annotator} – ${h.model}${h.baseline ? ' (baseline)' : ''}`, 44, h.n, h.raw, h.cohen_kappa),
    })),
  ];
  const adj = r.human_vs_adjudicated.filter(h => h.n);
  if (adj.length)
    lines.push(
      {text: ''},
      {text: `${'person vs adjudicated'.padEnd(30)} items   raw      κ`, role: 'heading'},
      ...adj.map(h => ({text: row(h.annotator, 30, h.n, h.raw, h.cohen_kappa)})),
    );
  lines.push({text: ''}, ...r.notes.map(n => ({text: `note: ${n}`, role: 'muted' as const})));
  return lines;
}
