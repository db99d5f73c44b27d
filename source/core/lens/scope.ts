/**
 * Function/class scope of an action (pure): which `def`/`class` of a file a read or an edit is
 * in, from the line ranges `deltatrace scopes` gives (Python's ast), so that two edits of the
 * same function are equivalent states even when one names lines and the other does not.
 */
import type {ActionState} from './state.js';

export interface Scope {
  qualname: string;
  kind: 'function' | 'class';
  start: number;
  end: number;
}

/** The innermost scope that contains the whole range; null at module level or across scopes. */
export function scopeAt(scopes: Scope[], range: [number, number]): string | null {
  let best: Scope | null = null;
  for (const s of scopes) {
    if (s.start <= range[0] && range[1] <= s.end && (!best || s.end - s.start < best.end - best.start)) best = s;
  }
  return best?.qualname ?? null;
}

/** sed's basic-regex escapes undone, for a literal search. */
function unescapeSed(pattern: string): string {
  return pattern.replace(/^\^/, '').replace(/\$$/, '').replace(/\\(.)/g, '$1');
}

function findLine(source: string, needle: string): number | null {
  const text = needle.trim();
  if (!text) return null;
  const lines = source.split('\n');
  const i = lines.findIndex(l => l.includes(text));
  return i < 0 ? null : i + 1;
}

/** A Python string literal's value (one line, common escapes), or null. */
function pyString(literal: string): string | null {
  const m = /^(?:[rRbBuU]{0,2})(['"])((?:\\.|(?!\1).)*)\1/.exec(literal);
  if (!m) return null;
  return m[2]!
    .replace(/\\n/g, '\n')
    .replace(/\\t/g, '\t')
    .replace(/\\(['"\\])/g, '$1');
}

/**
 * The lines an edit's command touches in the file as it was, found by the text it replaces:
 * `sed -i 's/OLD/NEW/'` (or an address `/OLD/`), a Python `old = "..."`, `.replace("OLD", …)`.
 * Null when the text is not found.
 */
export function locateEdit(actionText: string, source: string): [number, number] | null {
  const candidates: string[] = [];
  const sed = /\bsed\s+(?:-[a-zA-Z]*\s+)*(['"])([\s\S]*?)\1/.exec(actionText);
  if (sed) {
    const script = sed[2]!;
    const address = /^\/((?:\\.|[^/])*)\//.exec(script);
    if (address) candidates.push(unescapeSed(address[1]!));
    const sub = /s(.)((?:\\.|(?!\1).)*)\1/.exec(script);
    if (sub) candidates.push(unescapeSed(sub[2]!));
  }
  for (const m of actionText.matchAll(/\bold(?:_\w+)?\s*=\s*\(?\s*((?:[rRbBuU]{0,2})(['"])(?:\\.|(?!\2).)*\2)/g)) {
    const v = pyString(m[1]!);
    if (v) candidates.push(v);
  }
  for (const m of actionText.matchAll(/\.replace\(\s*((?:[rRbBuU]{0,2})(['"])(?:\\.|(?!\2).)*\2)/g)) {
    const v = pyString(m[1]!);
    if (v) candidates.push(v);
  }
  for (const c of candidates) {
    const first = c.split('\n').find(l => l.trim()) ?? '';
    const line = findLine(source, first);
    if (line !== null) {
      const span = c.split('\n').filter((l, i, all) => i < all.length - 1 || l.trim()).length;
      return [line, line + Math.max(0, span - 1)];
    }
  }
  return null;
}

/**
 * The state with a scope on each file it can place: by the file's line range, or for an edit
 * without one by locating the text it replaces. `sources` gives each file's scopes and text.
 */
export function withScopes(
  state: ActionState,
  actionText: string | null,
  sources: Map<string, {scopes: Scope[]; text: string}>,
): ActionState {
  if (!state.files.length) return state;
  let changed = false;
  const files = state.files.map(f => {
    const src = sources.get(f.path);
    if (!src) return f;
    const range =
      f.lines ??
      ((state.kind === 'edit' || state.kind === 'create') && actionText ? locateEdit(actionText, src.text) : null);
    const scope = range ? scopeAt(src.scopes, range) : null;
    if (!scope) return f;
    changed = true;
    return {...f, scope};
  });
  return changed ? {...state, files} : state;
}
