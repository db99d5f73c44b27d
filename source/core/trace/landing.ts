/**
 * Where a delta landed relative to what the patch changed: in a function the patch changed (or
 * one nested in it), in a function that reads a name the patch changed at module or class level,
 * at the call of a function the patch adds (the buggy side has no frame of it: the caller is
 * where the two runs part), or elsewhere — a function the change reached through calls, which
 * the delta may rightly name, or one where values differ for another reason.
 */

import type {DeltaResult} from './delta.js';
import type {Changes} from './line-map.js';

export type LandingKind = 'changed function' | 'reads a changed name' | 'calls an added function' | 'elsewhere' | 'no delta';

export interface Landing {
  kind: LandingKind;
  /** the changed function, the name read, or the added function called */
  target: string | null;
}

const within = (fn: string, qualname: string) => fn === qualname || fn.startsWith(`${qualname}.<locals>.`);

export function landing(d: Pick<DeltaResult, 'status' | 'kind' | 'function' | 'file' | 'control'>, changes: Changes): Landing {
  if (d.status !== 'found' || !d.function) return {kind: 'no delta', target: null};
  const changed = changes.functions.find(f => f.file === d.file && within(d.function!, f.qualname));
  if (changed) return {kind: 'changed function', target: `${changed.file}:${changed.qualname}`};
  const reader = (changes.readers ?? []).find(r => r.file === d.file && r.qualname === d.function);
  if (reader) return {kind: 'reads a changed name', target: reader.reads};
  const added = new Set(changes.functions.filter(f => f.sides.length === 1).map(f => f.qualname));
  const callee = d.kind === 'outcome' ? [d.control?.patched, d.control?.buggy].find(r => r?.kind === 'call' && r.callee && added.has(r.callee)) : undefined;
  if (callee?.callee) return {kind: 'calls an added function', target: callee.callee};
  return {kind: 'elsewhere', target: null};
}
