/**
 * Where a delta landed relative to what the patch changed: in a function the patch changed (or
 * one nested in it), in a function that reads a name the patch changed at module or class level,
 * at the call of a function the patch adds (the buggy side has no frame of it: the caller is
 * where the two runs part), or elsewhere — a function the change reached through calls, which
 * the delta may rightly name, or one where values differ for another reason.
 */

import type {DeltaResult} from './delta.js';
import type {Changes} from './line-map.js';

type LandingKind = 'changed function' | 'reads a changed name' | 'calls an added function' | 'elsewhere' | 'no delta';

export interface Landing {
  kind: LandingKind;
  /** the changed function, the name read, or the added function called */
  target: string | null;
  /** the delta is a callee's arguments: the caller that matched, making the call */
  caller?: string;
}

const within = (fn: string, qualname: string) => fn === qualname || fn.startsWith(`${qualname}.<locals>.`);

export function landing(
  d: Pick<DeltaResult, 'status' | 'kind' | 'function' | 'file' | 'control' | 'caller'>,
  changes: Changes,
): Landing {
  if (d.status !== 'found' || !d.function) return {kind: 'no delta', target: null};
  // the frame itself, or — arguments that differ — the caller that passed them
  const frames = [
    {fn: d.function, file: d.file, caller: undefined as string | undefined},
    ...(d.caller ? [{fn: d.caller.function, file: d.caller.file, caller: d.caller.function}] : []),
  ];
  for (const f of frames) {
    const changed = changes.functions.find(c => c.file === f.file && within(f.fn, c.qualname));
    if (changed)
      return {
        kind: 'changed function',
        target: `${changed.file}:${changed.qualname}`,
        ...(f.caller ? {caller: f.caller} : {}),
      };
    const reader = (changes.readers ?? []).find(r => r.file === f.file && r.qualname === f.fn);
    if (reader) return {kind: 'reads a changed name', target: reader.reads, ...(f.caller ? {caller: f.caller} : {})};
  }
  const added = new Set(changes.functions.filter(f => f.sides.length === 1).map(f => f.qualname));
  const callee =
    d.kind === 'outcome'
      ? [d.control?.patched, d.control?.buggy].find(r => r?.kind === 'call' && r.callee && added.has(r.callee))
      : undefined;
  if (callee?.callee) return {kind: 'calls an added function', target: callee.callee};
  return {kind: 'elsewhere', target: null};
}
