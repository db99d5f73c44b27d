/**
 * Built questions side by side with published ones (ExplainBench's package): for each question
 * built here whose instance, type and agent the package also has, the delta point (function,
 * line, timing), the key and the choices the two share. Pure: both sides come in as questions.
 */
import {isEffect, QUESTION_TYPES, type Choice, type Question, type QuestionType} from './model.js';

interface PointSide {
  function: string | null;
  /** the line as the question shows it (code, or the package's words for it) */
  line: string | null;
  timing: string | null;
}

interface ComparedQuestion {
  instance: string;
  type: QuestionType;
  agent: string | null;
  ours: string;
  theirs: string;
  /** local types: where each question is asked */
  point: {ours: PointSide; theirs: PointSide; same_function: boolean; same_line: boolean; same_timing: boolean} | null;
  key: {ours: string[]; theirs: string[]; same: boolean};
  /** the answer options other than "insufficient" (and "no effect"), as texts */
  choices: {ours: number; theirs: number; shared: string[]};
}

interface TypeTotals {
  compared: number;
  same_key: number;
  same_function: number | null;
  same_line: number | null;
  /** mean share of the package's options also among ours */
  shared_choices: number | null;
}

export interface Comparison {
  rows: ComparedQuestion[];
  totals: Record<QuestionType, TypeTotals>;
  /** built questions the package has no counterpart for (instance, type, agent) */
  unmatched: {id: string; reason: string}[];
}

/** Whitespace collapsed, surrounding quotes of a one-line text kept: the text as a reader compares it. */
const normalText = (t: string) => t.replace(/\s+/g, ' ').trim();

/** The name of the first function defined in a source text (`def name(`), or null. */
function definedFunction(source: unknown): string | null {
  if (typeof source !== 'string') return null;
  const m = /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/m.exec(source);
  return m ? m[1]! : null;
}

/** A built question's line: "code (line N)" → "code". */
function lineText(line: unknown): string | null {
  if (typeof line !== 'string' || !line.trim()) return null;
  return normalText(line.replace(/\s*\(line \d+\)\s*$/, ''));
}

const optionTexts = (choices: Choice[]) =>
  choices.filter(c => c.role === 'correct' || c.role === 'distractor').map(c => normalText(c.text));
const keyTexts = (q: Question) =>
  q.answer.map(l => normalText(q.choices.find(c => c.label === l)?.text ?? `(no choice ${l})`));

function pointOf(q: Question): PointSide {
  return {
    function: definedFunction(q.context.function),
    line: lineText(q.context.line),
    timing: typeof q.context.timing === 'string' ? q.context.timing : null,
  };
}

const matchKey = (q: Pick<Question, 'instance' | 'type' | 'agent'>) =>
  `${q.instance}\u0000${q.type}\u0000${isEffect(q.type) ? (q.agent ?? '') : ''}`;

export function compareQuestions(ours: Question[], theirs: Question[]): Comparison {
  const byKey = new Map<string, Question>();
  for (const q of theirs) if (!byKey.has(matchKey(q))) byKey.set(matchKey(q), q);
  const instances = new Set(theirs.map(q => q.instance));
  const rows: ComparedQuestion[] = [];
  const unmatched: {id: string; reason: string}[] = [];
  for (const q of ours) {
    const t = byKey.get(matchKey(q));
    if (!t) {
      unmatched.push({
        id: q.id,
        reason: !instances.has(q.instance)
          ? 'the package has no question on this instance'
          : isEffect(q.type)
            ? `the package has no ${q.type} question for agent "${q.agent ?? ''}" on this instance`
            : `the package has no ${q.type} question on this instance`,
      });
      continue;
    }
    const local = q.type === 'local_intent' || q.type === 'local_effect';
    const po = local ? pointOf(q) : null;
    const pt = local ? pointOf(t) : null;
    const ko = keyTexts(q);
    const kt = keyTexts(t);
    const oo = optionTexts(q.choices);
    const ot = new Set(optionTexts(t.choices));
    rows.push({
      instance: q.instance,
      type: q.type,
      agent: isEffect(q.type) ? q.agent : null,
      ours: q.id,
      theirs: t.id,
      point:
        po && pt
          ? {
              ours: po,
              theirs: pt,
              same_function: po.function !== null && po.function === pt.function,
              same_line: po.line !== null && po.line === pt.line,
              same_timing: po.timing !== null && po.timing === pt.timing,
            }
          : null,
      key: {ours: ko, theirs: kt, same: ko.length === kt.length && ko.every((k, i) => k === kt[i])},
      choices: {ours: oo.length, theirs: ot.size, shared: [...new Set(oo.filter(x => ot.has(x)))]},
    });
  }
  const totals = Object.fromEntries(
    QUESTION_TYPES.map(type => {
      const of = rows.filter(r => r.type === type);
      const local = type === 'local_intent' || type === 'local_effect';
      const shares = of.filter(r => r.choices.theirs > 0).map(r => r.choices.shared.length / r.choices.theirs);
      return [
        type,
        {
          compared: of.length,
          same_key: of.filter(r => r.key.same).length,
          same_function: local ? of.filter(r => r.point?.same_function).length : null,
          same_line: local ? of.filter(r => r.point?.same_line).length : null,
          shared_choices: shares.length ? shares.reduce((a, b) => a + b, 0) / shares.length : null,
        } satisfies TypeTotals,
      ];
    }),
  ) as Record<QuestionType, TypeTotals>;
  return {rows, totals, unmatched};
}
