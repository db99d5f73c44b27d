/**
 * Annotation (ExplainBench §5.4, Fig. 4), pure: items, queues with a seed, majorities,
 * disagreements, and the automatic question flags.
 */
import type {QuestionType} from './model.js';
import {rng} from './prompt.js';

/** One thing a person labels: a question asked about one explanation. */
export interface AnnotationItem {
  question: string;
  explanation: number;
  type: QuestionType;
  instance: string;
  agent: string | null;
}

export const itemKey = (i: {question: string; explanation: number}) => `${i.question}\u0000${i.explanation}`;

/** A label as a category: the letters in order ("B", or "A,C" for before/after). */
export const labelOf = (letters: string[]) => letters.join(',');

export type Queue = {kind: 'all'} | {kind: 'unlabelled'} | {kind: 'disagreements'} | {kind: 'sample'; n: number};

export function parseQueue(text: string): Queue | null {
  if (text === 'all' || text === 'unlabelled' || text === 'disagreements') return {kind: text};
  const m = /^sample:(\d+)$/.exec(text);
  return m && Number(m[1]) > 0 ? {kind: 'sample', n: Number(m[1])} : null;
}

export function shuffle<T>(xs: T[], seed: number): T[] {
  const out = [...xs];
  const next = rng(seed);
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * A stratified sample of n items over question types: each type gets n × its share (largest
 * remainders round), drawn from a seeded shuffle of that type; the result is shuffled again.
 */
export function stratifiedSample(items: AnnotationItem[], n: number, seed: number): AnnotationItem[] {
  const byType = new Map<string, AnnotationItem[]>();
  for (const it of sortItems(items)) {
    const list = byType.get(it.type);
    if (list) list.push(it);
    else byType.set(it.type, [it]);
  }
  const total = items.length;
  const take = Math.min(n, total);
  const types = [...byType.keys()].sort();
  const exact = types.map(t => (take * byType.get(t)!.length) / total);
  const alloc = exact.map(Math.floor);
  const order = types.map((_, i) => i).sort((a, b) => exact[b]! - alloc[b]! - (exact[a]! - alloc[a]!) || a - b);
  for (let k = 0, left = take - alloc.reduce((x, y) => x + y, 0); left > 0; k += 1, left -= 1)
    alloc[order[k % order.length]!]! += 1;
  const picked = types.flatMap((t, i) => shuffle(byType.get(t)!, seed + i + 1).slice(0, alloc[i]));
  return shuffle(picked, seed);
}

function sortItems(items: AnnotationItem[]): AnnotationItem[] {
  return [...items].sort(
    (a, b) =>
      a.instance.localeCompare(b.instance) || a.question.localeCompare(b.question) || a.explanation - b.explanation,
  );
}

/** The most frequent label, or null when there is none or a tie. */
export function majority(labels: string[]): string | null {
  const c = new Map<string, number>();
  for (const l of labels) c.set(l, (c.get(l) ?? 0) + 1);
  const sorted = [...c].sort((a, b) => b[1] - a[1]);
  if (!sorted.length || (sorted[1] && sorted[1][1] === sorted[0]![1])) return null;
  return sorted[0]![0];
}

export interface ItemLabels {
  /** people's labels on the item */
  human: {annotator: string; label: string}[];
  /** the QA model's majority over its samples (null: no answers or a tie) */
  modelMajority: string | null;
}

/** Humans disagree with each other, or some human disagrees with the QA model's majority. */
export function isDisagreement(l: ItemLabels): boolean {
  const distinct = new Set(l.human.map(h => h.label));
  if (distinct.size > 1) return true;
  return l.modelMajority !== null && l.human.some(h => h.label !== l.modelMajority);
}

/**
 * The items of a session in the order they are shown, without those this annotator labelled:
 * all — every item (a seeded shuffle); unlabelled — items nobody labelled; disagreements — items
 * whose labels disagree (isDisagreement); sample:N — a stratified seeded sample (the same N
 * items for everyone with the same seed).
 */
export function buildQueue(
  items: AnnotationItem[],
  labels: Map<string, ItemLabels>,
  queue: Queue,
  annotator: string,
  seed: number,
): AnnotationItem[] {
  const mine = (it: AnnotationItem) => labels.get(itemKey(it))?.human.some(h => h.annotator === annotator) ?? false;
  let chosen: AnnotationItem[];
  if (queue.kind === 'sample') chosen = stratifiedSample(items, queue.n, seed);
  else {
    const base =
      queue.kind === 'all'
        ? items
        : queue.kind === 'unlabelled'
          ? items.filter(it => !labels.get(itemKey(it))?.human.length)
          : items.filter(it => labels.has(itemKey(it)) && isDisagreement(labels.get(itemKey(it))!));
    chosen = shuffle(sortItems(base), seed);
  }
  return chosen.filter(it => !mine(it));
}

type AutoFlagReason = 'blank-answers' | 'lexical-everywhere' | 'model-vs-humans';

export const AUTO_FLAG_TEXT: Record<AutoFlagReason, string> = {
  'blank-answers': 'a blank explanation gets the right answer (the question can be answered without one)',
  'lexical-everywhere': 'the lexical baseline answers it right from every explanation (word overlap gives it away)',
  'model-vs-humans': 'every sample of the QA model disagrees with every person on an item',
};

export interface AutoFlag {
  question: string;
  reason: AutoFlagReason;
  evidence: string;
}

interface AutoFlagInput {
  question: string;
  /** per model, whether the majority answer to a blank explanation is correct */
  blank: {model: string; correct: boolean}[];
  /** the lexical baseline's majority verdict per explanation (original ones) */
  lexical: {explanation: number; correct: boolean}[];
  /** per item: the QA model's sample labels and the people's labels */
  items: {explanation: number; model: string; samples: string[]; human: string[]}[];
}

export function autoFlags(q: AutoFlagInput): AutoFlag[] {
  const out: AutoFlag[] = [];
  const blank = q.blank.filter(b => b.correct);
  if (blank.length)
    out.push({
      question: q.question,
      reason: 'blank-answers',
      evidence: `right from a blank explanation: ${blank.map(b => b.model).join(', ')}`,
    });
  if (q.lexical.length >= 2 && q.lexical.every(l => l.correct))
    out.push({
      question: q.question,
      reason: 'lexical-everywhere',
      evidence: `lexical is right on all ${q.lexical.length} explanations`,
    });
  const against = q.items.filter(i => i.samples.length && i.human.length && i.samples.every(s => !i.human.includes(s)));
  if (against.length)
    out.push({
      question: q.question,
      reason: 'model-vs-humans',
      evidence: against
        .map(
          i =>
            `explanation #${i.explanation}: ${i.model} said ${[...new Set(i.samples)].join('/')}, people said ${[...new Set(i.human)].join('/')}`,
        )
        .join('; '),
    });
  return out;
}

export const FLAG_VERDICTS = [
  'valid',
  'ambiguous',
  'wrong-key',
  'guessable',
  'leaks-answer',
  'broken-context',
] as const;
export type FlagVerdict = (typeof FLAG_VERDICTS)[number];
export const FLAG_TEXT: Record<FlagVerdict, string> = {
  valid: 'valid',
  ambiguous: 'ambiguous',
  'wrong-key': 'wrong key',
  guessable: 'trivially guessable',
  'leaks-answer': 'leaks the answer',
  'broken-context': 'broken context',
};
