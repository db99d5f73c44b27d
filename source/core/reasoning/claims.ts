/**
 * Claims in code reasoning, checked against the real execution (beyond DeskCheck, which names
 * certifying the faithfulness of code reasoning as future work): a reasoning span that states a
 * concrete value — a variable's value, a call's result, an exception — becomes a claim; a trace
 * of the program then confirms it (the value is recorded at that place), contradicts it (the
 * place is recorded with other values only), or leaves it unverifiable. Never a guess. Pure.
 */
import {formatValue} from '../trace/values.js';
import type {MarkFamily} from './detect.js';

export type Claim =
  | {kind: 'value'; name: string; value: string}
  | {kind: 'return'; function: string; value: string}
  | {kind: 'raises'; exception: string; function: string | null};

export type Verdict = 'confirmed' | 'contradicted' | 'unverifiable';

const IDENT = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/;
const strip = (t: string) => t.replace(/^`|`$/g, '').trim();

/** The claim a mark states, or null when it states none that a trace can check. */
export function claimOf(m: {family: MarkFamily; kind: string; text: string}): Claim | null {
  const t = m.text;
  if (m.family === 'A' && ['state-value', 'state-update', 'state-initial'].includes(m.kind)) {
    const sub =
      /^(`[^`\n]+`|[A-Za-z_][\w.]*)/.exec(t.trim())?.[1] ?? /\bsets?\s+(`[^`\n]+`|[A-Za-z_][\w.]*)/.exec(t)?.[1];
    const value = lastValue(t);
    const name = sub ? strip(sub) : null;
    return name && IDENT.test(name) && value !== null ? {kind: 'value', name, value} : null;
  }
  if (m.family === 'E' && m.kind === 'returns-value') {
    const callee =
      /(?:calling\s+)?`?([A-Za-z_][\w.]*)\s*(?:\([^`]*\))?`?\s*(?:returns|returned|will\s+return|would\s+return|yields|evaluates\s+to|produces|gives|->|=>|→)/i.exec(
        t,
      )?.[1];
    const value = lastValue(t);
    return callee && value !== null ? {kind: 'return', function: callee.split('.').at(-1)!, value} : null;
  }
  if (m.family === 'E' && m.kind === 'raises') {
    const exc = /`?([A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt))`?/.exec(t)?.[1];
    return exc ? {kind: 'raises', exception: exc, function: null} : null;
  }
  return null;
}

/** The value a span ends with, as written (backticks removed), or null. */
function lastValue(t: string): string | null {
  const m =
    /(`[^`\n]{1,80}`|'[^'\n]{0,60}'|"[^"\n]{0,60}"|-?\d+(?:\.\d+)?|\b(?:True|False|None)\b|\[[^\]\n]{0,60}\]|\{[^}\n]{0,60}\}|\([^)\n]{0,60}\)|\ban? empty (?:list|dict|dictionary|string|tuple|set)\b|\bempty\b)\s*$/.exec(
      t.trim(),
    );
  return m ? strip(m[1]!) : null;
}

const norm = (s: string) => s.replace(/\s+/g, '').replace(/"/g, "'").replace(/,\)$/, ')').replace(/,]$/, ']');

/** Whether a recorded value (the tracer's decoded JSON) is the value a claim states. */
export function valueMatches(claimed: string, recorded: unknown): boolean {
  const text = formatValue(recorded, 10_000);
  if (/^(?:an? )?empty(?: (?:list|dict|dictionary|string|tuple|set))?$/.test(claimed))
    return ["''", '[]', '{}', '()', 'set()'].includes(norm(text));
  const n = Number(claimed);
  if (claimed.trim() !== '' && Number.isFinite(n) && typeof recorded === 'number') return n === recorded;
  if (norm(text) === norm(claimed)) return true;
  // a string stated without quotes ("`mode` is rb"); a number stated is never a string's text
  return typeof recorded === 'string' && !Number.isFinite(n) && recorded === claimed;
}

/** One sentence for a claim: what it says. */
export function claimText(c: Claim): string {
  if (c.kind === 'value') return `${c.name} = ${c.value}`;
  if (c.kind === 'return') return `${c.function}(…) returns ${c.value}`;
  return `${c.function ? `${c.function} ` : ''}raises ${c.exception}`;
}
