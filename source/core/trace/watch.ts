/**
 * Watch expressions evaluated on recorded state, without running anything: a name,
 * followed by attribute reads (`.x`), constant subscripts (`[0]`, `['k']`), optionally
 * wrapped in len(). Anything else needs a live re-run (deltatrace eval), and
 * `recordedOnly` says so.
 */
import type {Locals} from './locals.js';

type Step = {attr: string} | {index: number | string};
interface WatchPlan {
  len: boolean;
  name: string;
  path: Step[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function planWatch(expr: string): WatchPlan | null {
  let text = expr.trim();
  let len = false;
  const m = /^len\((.*)\)$/.exec(text);
  if (m) {
    len = true;
    text = m[1]!.trim();
  }
  const head = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text);
  if (!head || !NAME.test(head[0])) return null;
  const path: Step[] = [];
  let rest = text.slice(head[0].length);
  while (rest.length) {
    let t: RegExpExecArray | null;
    if ((t = /^\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)/.exec(rest))) path.push({attr: t[1]!});
    else if ((t = /^\s*\[\s*(-?\d+)\s*\]/.exec(rest))) path.push({index: Number(t[1])});
    else if ((t = /^\s*\[\s*'([^'\\]*)'\s*\]/.exec(rest)) || (t = /^\s*\[\s*"([^"\\]*)"\s*\]/.exec(rest)))
      path.push({index: t[1]!});
    else return null;
    rest = rest.slice(t[0].length);
  }
  return {len, name: head[0], path};
}

type WatchResult = {value: unknown} | {error: string};

function seqOf(v: unknown): unknown[] | null {
  if (Array.isArray(v)) return v;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const key of ['$tuple', 'items', '$set', '$frozenset', '$deque'])
      if (Array.isArray(o[key])) return o[key] as unknown[];
  }
  return null;
}

export function evalWatch(plan: WatchPlan, locals: Locals): WatchResult {
  if (!locals.has(plan.name)) return {error: `NameError: ${plan.name} is not a recorded local here`};
  let cur = locals.get(plan.name);
  for (const step of plan.path) {
    if (cur && typeof cur === 'object' && '$depth' in (cur as object))
      return {error: 'not recorded: deeper than the serialization depth (use a live re-run)'};
    if ('attr' in step) {
      const attrs = (cur as {attrs?: Record<string, unknown>} | null)?.attrs;
      if (!attrs || !(step.attr in attrs)) return {error: `AttributeError or not recorded: .${step.attr}`};
      cur = attrs[step.attr];
    } else if (typeof step.index === 'number') {
      const items = seqOf(cur);
      if (!items) return {error: 'not a recorded sequence'};
      const real = items.filter(x => !(x && typeof x === 'object' && '$more' in (x as object)));
      const i = step.index < 0 ? real.length + step.index : step.index;
      if (i < 0 || i >= real.length)
        return {error: real.length < items.length ? 'beyond the recorded items' : 'IndexError: index out of range'};
      cur = real[i];
    } else {
      // a dict, or a dict subclass ({"$obj", "items": [[k, v], …]})
      const o = cur as {$dict?: unknown[]; items?: unknown[]} | null;
      const pairs =
        o?.$dict ??
        (Array.isArray(o?.items) &&
        o!.items.every(p => Array.isArray(p) || (p && typeof p === 'object' && '$more' in (p as object)))
          ? o!.items
          : undefined);
      if (!Array.isArray(pairs)) return {error: 'not a recorded dict'};
      const hit = pairs.find(p => Array.isArray(p) && p[0] === step.index) as [unknown, unknown] | undefined;
      if (!hit)
        return {
          error: pairs.some(p => !Array.isArray(p)) ? 'key not among the recorded items' : `KeyError: '${step.index}'`,
        };
      cur = hit[1];
    }
  }
  if (plan.len) {
    if (typeof cur === 'string') return {value: [...cur].length};
    const o = cur as Record<string, unknown> | null;
    if (o && typeof o === 'object' && '$str' in o) return {value: o.len};
    const items = seqOf(cur) ?? (Array.isArray(o?.$dict) ? (o!.$dict as unknown[]) : null);
    if (!items) return {error: 'len() of an unrecorded or unsized value'};
    const more = items.find(x => x && typeof x === 'object' && '$more' in (x as object)) as {$more: number} | undefined;
    return {value: items.length - (more ? 1 : 0) + (more?.$more ?? 0)};
  }
  return {value: cur};
}
