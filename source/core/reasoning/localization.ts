/**
 * Localization against the gold patch (DeskCheck Table 3): which files and which functions an
 * agent's patch edits, against those the developer's patch edits — precision, recall, F1.
 * Pure: the functions come from the line ranges `deltatrace scopes` gives.
 */
import type {Scope} from '../lens/scope.js';

/** Per file (the old path, without a/ b/), the lines of the original the diff touches: removed
 * lines, and for an insertion the line it follows (line 1 for one at the top). */
export function diffTouches(diff: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  let file: string | null = null;
  let old = 0;
  for (const line of diff.split('\n')) {
    const header = /^--- (?:a\/)?(\S+)/.exec(line);
    if (header && !line.startsWith('--- /dev/null')) {
      file = header[1]!;
      continue;
    }
    if (line.startsWith('--- /dev/null')) {
      file = null;
      continue;
    }
    const plus = /^\+\+\+ (?:b\/)?(\S+)/.exec(line);
    if (plus) {
      // a new file: its own path, touched at line 1
      if (file === null && plus[1] !== '/dev/null') {
        file = plus[1]!;
        if (!out.has(file)) out.set(file, [1]);
      }
      continue;
    }
    const hunk = /^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@/.exec(line);
    if (hunk) {
      old = Number(hunk[1]);
      continue;
    }
    if (file === null || (old === 0 && !line.startsWith('+'))) continue;
    const lines = out.get(file) ?? [];
    if (!out.has(file)) out.set(file, lines);
    if (line.startsWith('-')) lines.push(old++);
    else if (line.startsWith('+')) lines.push(Math.max(1, old - 1));
    else if (line.startsWith(' ') || line === '') old++;
  }
  for (const [f, ls] of out)
    out.set(
      f,
      [...new Set(ls)].sort((a, b) => a - b),
    );
  return out;
}

/** The functions (file::qualname; file::<module> outside any) the touched lines are in; null for
 * a file whose scopes are not known. */
export function functionsTouched(
  touches: Map<string, number[]>,
  scopes: Map<string, Scope[]>,
): {functions: Set<string>; unknownFiles: string[]} {
  const functions = new Set<string>();
  const unknownFiles: string[] = [];
  for (const [file, lines] of touches) {
    const s = scopes.get(file);
    if (!s) {
      unknownFiles.push(file);
      continue;
    }
    for (const l of lines) {
      let best: Scope | null = null;
      for (const x of s)
        if (x.kind === 'function' && x.start <= l && l <= x.end && (!best || x.end - x.start < best.end - best.start))
          best = x;
      functions.add(`${file}::${best?.qualname ?? '<module>'}`);
    }
  }
  return {functions, unknownFiles};
}

export interface Prf {
  precision: number | null;
  recall: number | null;
  f1: number | null;
  agent: number;
  gold: number;
  both: number;
}

/** Precision, recall and F1 of a predicted set against a gold set. An empty gold set has no
 * score; an empty prediction has precision null (nothing to be right about) and recall 0. */
export function prf(predicted: Set<string>, gold: Set<string>): Prf {
  const both = [...predicted].filter(x => gold.has(x)).length;
  const base = {agent: predicted.size, gold: gold.size, both};
  if (!gold.size) return {precision: null, recall: null, f1: null, ...base};
  const precision = predicted.size ? both / predicted.size : null;
  const recall = both / gold.size;
  const f1 = precision === null || precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return {precision, recall, f1, ...base};
}
