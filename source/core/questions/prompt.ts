/**
 * The question-answering prompt (ExplainBench Fig. 5), with the options in a per-sample
 * order: the answerable options are shuffled with a seed, "no effect" and "insufficient"
 * stay last, and the key follows the shuffle. The public ExplainBench code shuffles once and
 * reuses one order for every sample; a seed per sample lets position bias be measured.
 */
import type {Question} from './model.js';

export const PROMPT_VERSION = 'fig5-v1';

const INTRO =
  'An AI agent fixed a bug in a code repository and provided an explanation for the patch. You will be given this patch explanation, and your task is to answer questions about the bug and patch described by the explanation.';

/** 32-bit FNV-1a, for seeds that do not depend on anything but their inputs. */
export function seedOf(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const ch of parts.join('\u0000')) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: a small deterministic PRNG (also for annotation queues, so a seed means the same on every machine). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Canonical labels in the order shown; null seed keeps the written order. */
export function permutation(q: Question, seed: number | null): string[] {
  const free = q.choices.filter(c => c.role === 'correct' || c.role === 'distractor').map(c => c.label);
  const last = [
    ...q.choices.filter(c => c.role === 'no_effect'),
    ...q.choices.filter(c => c.role === 'insufficient'),
  ].map(c => c.label);
  if (seed !== null) {
    const r = rng(seed);
    for (let i = free.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [free[i], free[j]] = [free[j]!, free[i]!];
    }
  }
  return [...free, ...last];
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export interface Prompt {
  text: string;
  /** display label → canonical label */
  toCanonical: Map<string, string>;
  /** the key in display labels */
  displayKey: string[];
  order: string[];
}

function contextText(q: Question, choicesOnly: boolean): string {
  if (choicesOnly) return '';
  const c = q.context;
  const s = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  if (q.type === 'e2e_intent' || q.type === 'e2e_effect') {
    return `Test${q.type === 'e2e_intent' ? ' (with the expected behaviour masked as [[MASKED]])' : ''}:\n\`\`\`python\n${s(c.test ?? '')}\n\`\`\`\n\n`;
  }
  return [
    `Function (before the patch):\n\`\`\`python\n${s(c.function ?? '')}\n\`\`\``,
    c.inputs !== undefined ? `Inputs: ${s(c.inputs)}` : '',
    c.line !== undefined ? `Line: ${s(c.line)}` : '',
    c.timing !== undefined ? `Timing: immediately ${s(c.timing)} the line runs` : '',
  ]
    .filter(Boolean)
    .join('\n')
    .concat('\n\n');
}

/** Display letter → canonical label, for options shown in `order` (as buildPrompt shows them). */
export function canonicalLetters(order: readonly string[]): Map<string, string> {
  return new Map(order.map((label, i) => [LETTERS[i]!, label]));
}

export function buildPrompt(
  q: Question,
  explanation: string,
  seed: number | null,
  opts: {choicesOnly?: boolean} = {},
): Prompt {
  const order = permutation(q, seed);
  const toCanonical = canonicalLetters(order);
  const toDisplay = new Map(order.map((label, i) => [label, LETTERS[i]!]));
  const options = order.map((label, i) => `${LETTERS[i]}. ${q.choices.find(c => c.label === label)!.text}`).join('\n');
  const answerFormat =
    q.type === 'e2e_effect'
      ? 'Answer with two letters, the result before the patch and the result after it, e.g. "B, D". Nothing else.'
      : 'Answer with the letter of one option only. Nothing else.';
  const text = opts.choicesOnly
    ? `Question:\n${q.question}\n\n${options}\n\n${answerFormat}`
    : `${INTRO}\n\nPatch Explanation:\n*** Explanation Start ***\n${explanation}\n*** Explanation End ***\n\n${contextText(q, false)}Question:\n${q.question}\n\n${options}\n\n${answerFormat}`;
  return {text, toCanonical, displayKey: q.answer.map(k => toDisplay.get(k)!), order};
}
