import {formatValue} from '../trace/values.js';

/**
 * Local questions' candidate expressions (ExplainBench §5.3) and what "changed" means for one
 * evaluated on both versions.
 */
/** The error of evaluating __return__ where the call has not returned yet (not an exception the call raised). */
export const notReturnedYet = (e: {type: string; message?: string}) =>
  /(^|\.)NameError$/.test(e.type) && /'__return__'/.test(e.message ?? '');

/** A value as a question shows it (a function's inputs). */
export const shown = (v: unknown) => formatValue(v, 200);

/** Candidate expressions at a delta point, offline: names in scope, len() of sized values,
 * attribute reads of recorded objects, simple comparisons. */
export function localCandidates(scopes: (Map<string, unknown> | null)[], limit = 20): {text: string; how: string}[] {
  const out: {text: string; how: string}[] = [];
  const seen = new Set<string>();
  const add = (text: string, how: string) => {
    if (!seen.has(text) && out.length < limit) {
      seen.add(text);
      out.push({text, how});
    }
  };
  const values = new Map<string, unknown>();
  for (const scope of scopes) for (const [k, v] of scope ?? []) if (!values.has(k)) values.set(k, v);
  const plain = [...values].filter(
    ([k, v]) =>
      /^[A-Za-z_]\w*$/.test(k) && !k.startsWith('__') && !(isObj(v) && ('$fn' in v || '$type' in v || '$module' in v)),
  );
  for (const [k] of plain) add(k, 'a variable in scope');
  for (const [k, v] of plain) {
    if (
      typeof v === 'string' ||
      Array.isArray(v) ||
      (isObj(v) && ('$dict' in v || '$tuple' in v || '$set' in v || '$frozenset' in v))
    )
      add(`len(${k})`, 'the length of a sized value');
    if (isObj(v) && isObj(v.attrs))
      for (const a of Object.keys(v.attrs)
        .filter(a => /^[A-Za-z]\w*$/.test(a))
        .slice(0, 3))
        add(`${k}.${a}`, 'an attribute read');
    if (typeof v === 'number') add(`${k} > 0`, 'a comparison');
    if (v === null) add(`${k} is None`, 'a comparison');
  }
  return out;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export type EvalResult = {value?: unknown; error?: {type: string; message?: string}};

/** "Changed" (the one definition, also in readme.md): a different value, an exception on one
 * side only, or a different exception type or message. */
export function changed(b: EvalResult, p: EvalResult): boolean {
  if (b.error || p.error)
    return !b.error || !p.error || b.error.type !== p.error.type || (b.error.message ?? '') !== (p.error.message ?? '');
  return JSON.stringify(b.value) !== JSON.stringify(p.value);
}
