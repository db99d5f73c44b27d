/**
 * Reading a QA model's answer: a single letter, or two for end-to-end effect; JSON answers
 * as the ExplainBench results files record them; anything else is unparseable (kept, shown,
 * and counted wrong).
 */
import type {Choice, QuestionType} from './model.js';

export type Verdict = 'correct' | 'misaligned' | 'uninformative';

const LETTER = '\\(?\\[?\\**([A-Za-z])\\**\\]?\\)?';

function fromJson(raw: string): string[] | null | undefined {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof v === 'string') return [v];
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.before_selection === 'string' && typeof o.after_selection === 'string')
    return [o.before_selection, o.after_selection];
  if (typeof o.selection === 'string') return [o.selection];
  if (Array.isArray(o.answer) && o.answer.every(x => typeof x === 'string')) return o.answer as string[];
  if (typeof o.answer === 'string') return [o.answer];
  return null;
}

/** The letters of an answer, upper case, or null when it cannot be read. */
export function parseAnswer(raw: string, type: QuestionType, labels: string[]): string[] | null {
  const text = raw.trim();
  const want = type === 'e2e_effect' ? 2 : 1;
  const ok = (letters: string[] | null | undefined): string[] | null => {
    if (!letters) return null;
    const up = letters.map(l => l.trim().toUpperCase());
    return up.length === want && up.every(l => labels.includes(l)) ? up : null;
  };
  const json = fromJson(text);
  if (json !== undefined) {
    if (!json) return null;
    // a recorded selection may itself be free text ("D. The test failed at line 19 …")
    const letters = json.map(s => (s.trim().length > 1 ? (parseAnswer(s, 'e2e_intent', labels)?.[0] ?? s) : s));
    // local questions are recorded as lists; a model that picked several is kept (and wrong)
    if (want === 1 && letters.length > 1) {
      const up = letters.map(l => l.trim().toUpperCase());
      return up.every(l => labels.includes(l)) ? up : null;
    }
    return ok(letters);
  }
  if (want === 1) {
    const m = new RegExp(`^(?:answer\\s*[:：]?\\s*)?${LETTER}(?:[.):\\s]|$)`, 'i').exec(text);
    return ok(m ? [m[1]!] : null);
  }
  const labelled =
    /before(?:\s+the\s+patch)?\W{0,3}([A-Za-z])\b[\s\S]*?after(?:\s+the\s+patch)?\W{0,3}([A-Za-z])\b/i.exec(text);
  if (labelled) return ok([labelled[1]!, labelled[2]!]);
  const pair = new RegExp(`^${LETTER}\\s*(?:[,;/&]|and|\\s)\\s*${LETTER}\\W*$`, 'i').exec(text);
  return ok(pair ? [pair[1]!, pair[2]!] : null);
}

/**
 * correct: the letters equal the key; uninformative: not correct and an "insufficient"
 * choice was picked; misaligned: any other wrong answer; null: unparseable (counted wrong).
 */
export function verdictFor(letters: string[] | null, key: string[], choices: Choice[]): Verdict | null {
  if (!letters) return null;
  if (letters.length === key.length && letters.every((l, i) => l === key[i])) return 'correct';
  const insufficient = new Set(choices.filter(c => c.role === 'insufficient').map(c => c.label));
  return letters.some(l => insufficient.has(l)) ? 'uninformative' : 'misaligned';
}
