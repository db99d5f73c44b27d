/**
 * The tracer's focus: which functions a traced run records (with everything below them and the
 * callers that lead to them). It follows what the patch changed, not only which functions:
 *
 * - a function whose lines the patch touched;
 * - a function that reads a name the patch changed at module or class level (a constant, a
 *   table, a class attribute, an import) — in the changed module or one that imports the name;
 * - the callers of a function the patch adds, as the patched run shows them (a dispatcher that
 *   finds `_print_Rational` by name), on both sides — added by the tracing service after the
 *   first runs (`withAddedCallers`);
 * - when none of these singles out a function of a changed module: every function of that
 *   module (`FILE:*`), never the test alone.
 */

import type {Changes} from './line-map.js';

interface FocusEntry {
  /** FILE:QUALNAME, or FILE:* for every function of the file */
  target: string;
  why: string;
}

export interface FocusPlan {
  buggy: FocusEntry[];
  patched: FocusEntry[];
}

/** A test file by the usual conventions: the focus never widens to a whole test module. */
function isTestFile(file: string): boolean {
  const base = file.split('/').at(-1) ?? file;
  return /(^|\/)tests?\//.test(file) || base.startsWith('test_') || base.endsWith('_test.py') || base === 'conftest.py';
}

export function focusPlan(changes: Changes): FocusPlan {
  const plan: FocusPlan = {buggy: [], patched: []};
  const add = (side: 'buggy' | 'patched', target: string, why: string) => {
    if (!plan[side].some(e => e.target === target)) plan[side].push({target, why});
  };
  for (const f of changes.functions) {
    for (const side of f.sides) add(side, `${f.file}:${f.qualname}`, 'changed by the patch');
  }
  for (const r of changes.readers ?? []) {
    const made = (changes.module_names ?? []).find(m => m.file === (r.via ?? r.file) && m.name === r.reads && m.from);
    const why = made
      ? `reads ${r.reads}, made from ${made.from}, which the patch changed at module level${r.via ? ` in ${r.via}` : ''}`
      : `reads ${r.reads}, which the patch changed at module or class level${r.via ? ` in ${r.via}` : ''}`;
    for (const side of r.sides) add(side, `${r.file}:${r.qualname}`, why);
  }
  // a module changed at module or class level where no function reads the changed names by
  // name (a table read only at import, a class attribute read through getattr): all of it; a
  // module changed only in comments or docstrings outside functions: its body, should the test
  // import it
  for (const file of changes.files) {
    if (!file.python || isTestFile(file.file)) continue;
    const names = (changes.module_names ?? []).filter(m => m.file === file.file);
    const read = (changes.readers ?? []).some(r => r.file === file.file || r.via === file.file);
    const fnChanged = changes.functions.some(f => f.file === file.file);
    let target: string | null = null;
    let why = '';
    if (names.length && !read) {
      target = `${file.file}:*`;
      why = `the patch changed ${names.map(n => (n.scope ? `${n.scope}.${n.name}` : n.name)).join(', ')} at module or class level and no function reads ${names.length > 1 ? 'them' : 'it'} by name: every function of the module`;
    } else if (!names.length && !fnChanged) {
      target = `${file.file}:<module>`;
      why =
        'the patch changed this module only outside its functions, in no statement that binds a name: its body, if the test imports it';
    }
    if (!target) continue;
    if (file.status !== 'added') add('buggy', target, why);
    if (file.status !== 'removed') add('patched', target, why);
  }
  return plan;
}

/** Functions only the patched side has (the patch adds them). */
export function addedFunctions(changes: Changes): {file: string; qualname: string}[] {
  return changes.functions.filter(f => f.sides.length === 1 && f.sides[0] === 'patched');
}

/** The focus lists the tracer takes (`--focus FILE:FUNC`). */
export function focusTargets(plan: FocusPlan): {buggy: string[]; patched: string[]} {
  return {buggy: plan.buggy.map(e => e.target), patched: plan.patched.map(e => e.target)};
}
