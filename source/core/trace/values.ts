/**
 * The tracer's value encoding (tracer/deltatrace/serialize.py), read back: rendering as
 * Python-like text for people, and comparison for the delta extraction.
 */

type Json = null | boolean | number | string | Json[] | {[key: string]: Json};

function isObj(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function pyStr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\n')
    .replace(/\t/g, '\\t')
    .replace(/\r/g, '\\r')
    .replace(new RegExp(q, 'g'), `\\${q}`);
  return `${q}${body}${q}`;
}

function pyNum(n: number): string {
  if (Number.isInteger(n) && !Object.is(n, -0)) return String(n);
  return String(n);
}

/** Python-like rendering: [1, 2], {'a': 1}, (1,), Item(name='a', qty=3), '…' markers. */
export function formatValue(value: unknown, max = 400): string {
  const out = render(value as Json);
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

function seq(items: Json[], open: string, close: string, single = false): string {
  const inner = items.map(render).join(', ');
  return `${open}${inner}${single && items.length === 1 ? ',' : ''}${close}`;
}

function render(v: Json): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return pyNum(v);
  if (typeof v === 'string') return pyStr(v);
  if (Array.isArray(v)) return seq(v, '[', ']');
  if ('$more' in v) return `…+${v.$more}`;
  if ('$ref' in v) return `<ref #${v.$ref}>`;
  if ('$str' in v) return `${pyStr(String(v.$str))}…(${v.len} chars)`;
  if ('$doc' in v)
    return `${pyStr(String(v.text ?? ''))}${Number(v.len) > String(v.text ?? '').length ? '…' : ''}(docstring of ${String(v.$doc)} the patch edited, ${v.len} chars)`;
  if ('$int' in v) return String(v.$int) + (v.digits ? `(${v.digits} digits)` : '');
  if ('$float' in v) return v.$float === 'nan' ? 'nan' : v.$float === 'inf' ? 'inf' : '-inf';
  if ('$bytes' in v)
    return `b${pyStr(String(v.$bytes))}${Number(v.len) > String(v.$bytes).length ? `…(${v.len} bytes)` : ''}`;
  if ('$complex' in v) return `complex(${(v.$complex as Json[]).map(render).join(', ')})`;
  if ('$tuple' in v) return seq(v.$tuple as Json[], '(', ')', true);
  if ('$set' in v) return (v.$set as Json[]).length ? seq(v.$set as Json[], '{', '}') : 'set()';
  if ('$frozenset' in v) return `frozenset(${seq(v.$frozenset as Json[], '{', '}')})`;
  if ('$dict' in v) return pairs(v.$dict as Json[]);
  if ('$decimal' in v) return `${typed(v, 'Decimal')}('${v.$decimal}')`;
  if ('$fraction' in v) return `Fraction(${(v.$fraction as Json[]).map(render).join(', ')})`;
  if ('$datetime' in v) return `${typed(v, 'datetime')}(${String(v.$datetime)}${v.tz ? ` ${render(v.tz)}` : ''})`;
  if ('$date' in v) return `${typed(v, 'date')}(${String(v.$date)})`;
  if ('$time' in v) return `${typed(v, 'time')}(${String(v.$time)}${v.tz ? ` ${render(v.tz)}` : ''})`;
  if ('$timedelta' in v) {
    const [d, s, us] = v.$timedelta as number[];
    return `${typed(v, 'timedelta')}(days=${d}, seconds=${s}${us ? `, microseconds=${us}` : ''})`;
  }
  if ('$timezone' in v) {
    const [s, us, name] = v.$timezone as [number, number, string];
    return `timezone(${name ?? `${s}s${us ? `+${us}µs` : ''}`})`;
  }
  if ('$zone' in v) return `ZoneInfo('${v.$zone}')`;
  if ('$uuid' in v) return `UUID('${v.$uuid}')`;
  if ('$path' in v) return `${v.type ?? 'Path'}(${pyStr(String(v.$path))})`;
  if ('$enum' in v) return `${String(v.$enum).split('.').at(-1)}.${v.name ?? render(v.value ?? null)}`;
  if ('$deque' in v)
    return `deque(${seq(v.$deque as Json[], '[', ']')}${v.maxlen !== undefined ? `, maxlen=${v.maxlen}` : ''})`;
  if ('$range' in v) return `range(${(v.$range as Json[]).map(render).join(', ')})`;
  if ('$slice' in v) return `slice(${(v.$slice as Json[]).map(render).join(', ')})`;
  if ('$array' in v) return `array('${v.$array}', ${seq(v.items as Json[], '[', ']')})`;
  if ('$pattern' in v) return `re.compile(${render(v.$pattern)}${v.flags ? `, ${v.flags}` : ''})`;
  if ('$memoryview' in v)
    return `memoryview(${typeof v.$memoryview === 'string' ? v.$memoryview : render(v.$memoryview)})`;
  if ('$ndarray' in v)
    return `array(${seq(v.items as Json[], '[', ']')}, dtype='${v.$ndarray}', shape=(${(v.shape as number[]).join(', ')}${(v.shape as number[]).length === 1 ? ',' : ''}))`;
  if ('$numpy' in v) return `${render(v.value ?? null)} (${v.$numpy})`;
  if ('$fn' in v) return `<function ${v.$fn}>`;
  if ('$type' in v) return `<class ${v.$type}>`;
  if ('$module' in v) return `<module ${v.$module}>`;
  if ('$depth' in v) return `<${v.$depth} …>`;
  if ('$obj' in v) {
    const name = String(v.$obj).split('.').at(-1);
    if ('value' in v) return `${name}(${render(v.value!)})`;
    if ('items' in v)
      return `${name}(${Array.isArray(v.items) && v.items.every(x => Array.isArray(x) || (isObj(x) && '$more' in x)) && /dict|Dict|Counter|KB/.test(name ?? '') ? pairs(v.items) : render(v.items!)})`;
    const attrs = isObj(v.attrs)
      ? Object.entries(v.attrs).map(([k, x]) => (k === '$more' ? `…+${x}` : `${k}=${render(x)}`))
      : [];
    if ('args' in v)
      attrs.unshift(...((isObj(v.args) && Array.isArray(v.args.$tuple) ? v.args.$tuple : []) as Json[]).map(render));
    return `${name}(${attrs.join(', ')})`;
  }
  return JSON.stringify(v);
}

function pairs(items: Json[]): string {
  return `{${items.map(pair => (Array.isArray(pair) ? `${render(pair[0]!)}: ${render(pair[1]!)}` : render(pair))).join(', ')}}`;
}

/** The class a value of a standard type was written with: the subclass when it is one. */
function typed(v: Record<string, Json>, base: string): string {
  return typeof v.type === 'string' ? String(v.type).split('.').at(-1)! : base;
}

export interface CompareOptions {
  /** public ExplainBench behaviour: floats equal when equal to 3 significant digits */
  roundFloats?: boolean;
  /** a docstring the patch edited (and its copies) counts as behaviour (off: same on both sides) */
  docstrings?: boolean;
  /** the order of a sequence of classes, functions or modules counts as behaviour (off: the same
   * ones in another order are the same — tuple(a set of classes) is ordered by memory address) */
  identityOrder?: boolean;
}

const IDENTITY_KEYS = ['$type', '$fn', '$module'];
const identityHashed = (v: unknown): boolean =>
  isObj(v) && Object.keys(v).length === 1 && IDENTITY_KEYS.includes(Object.keys(v)[0]!);

/** The same classes, functions or modules, in any order. */
function sameIdentityElements(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length || a.length < 2 || !a.every(identityHashed) || !b.every(identityHashed)) return false;
  const key = (xs: unknown[]) =>
    xs
      .map(x => JSON.stringify(x))
      .sort()
      .join('\u0000');
  return key(a) === key(b);
}

const isDoc = (v: unknown): v is {$doc: string} => typeof v === 'object' && v !== null && '$doc' in v;

function round3(n: number): number {
  return n === 0 || !Number.isFinite(n) ? n : Number(n.toPrecision(3));
}

/** Deep equality of two encoded values (object key order ignored). */
export function sameValue(a: unknown, b: unknown, options: CompareOptions = {}): boolean {
  if (a === b) return true;
  // an edited docstring: the same one on both sides (or none on the side that has none)
  if (!options.docstrings && (isDoc(a) || isDoc(b))) {
    if (isDoc(a) && isDoc(b)) return a.$doc === b.$doc;
    if (a === null || b === null) return true;
  }
  if (typeof a === 'number' && typeof b === 'number') {
    return options.roundFloats ? round3(a) === round3(b) : false;
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length === bb.length && a.every((x, i) => sameValue(x, bb[i], options))) return true;
    return !options.identityOrder && sameIdentityElements(a, bb);
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  const ob = b as Record<string, unknown>;
  return ka.every(k => k in ob && sameValue((a as Record<string, unknown>)[k], ob[k], options));
}

/** Where two encoded values first differ: the path into them (".attr", "[0]", "['key']") and each side's value there (undefined: not there on that side). */
interface FirstDifference {
  path: string;
  buggy: unknown;
  patched: unknown;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The containers whose one key holds a list of items: walked by index. */
const SEQUENCES = ['$tuple', '$set', '$frozenset', '$deque'];

/**
 * The first place two encoded values differ, walking into lists, tuples, sets, dicts (by key
 * where both sides have the same key at that position) and objects (by attribute), so that a
 * difference deep in a large value (an attribute of an attribute) can be shown without its whole
 * text. null when they are equal.
 */
export function firstDifference(buggy: unknown, patched: unknown, path = ''): FirstDifference | null {
  if (sameJson(buggy, patched)) return null;
  const leaf = {path, buggy, patched};
  if (Array.isArray(buggy) && Array.isArray(patched)) {
    for (let i = 0; i < Math.max(buggy.length, patched.length); i++) {
      if (sameJson(buggy[i], patched[i])) continue;
      if (i >= buggy.length || i >= patched.length)
        return {path: `${path}[${i}]`, buggy: buggy[i], patched: patched[i]};
      return firstDifference(buggy[i], patched[i], `${path}[${i}]`);
    }
    return leaf;
  }
  if (!isObj(buggy) || !isObj(patched)) return leaf;
  const tag = SEQUENCES.find(t => t in buggy && t in patched);
  if (tag) return firstDifference(buggy[tag], patched[tag], path) ?? leaf;
  if ('$dict' in buggy && '$dict' in patched && Array.isArray(buggy.$dict) && Array.isArray(patched.$dict)) {
    const [b, p] = [buggy.$dict, patched.$dict];
    for (let i = 0; i < Math.max(b.length, p.length); i++) {
      const [x, y] = [b[i], p[i]];
      if (sameJson(x, y)) continue;
      if (Array.isArray(x) && Array.isArray(y) && sameJson(x[0], y[0]))
        return firstDifference(x[1], y[1], `${path}[${render(x[0]!)}]`);
      const key = (pair: Json | undefined) => (Array.isArray(pair) ? render(pair[0]!) : null);
      return {path: `${path}{${key(x) ?? key(y) ?? `item ${i}`}}`, buggy: x, patched: y};
    }
    return leaf;
  }
  if ('$obj' in buggy && '$obj' in patched && buggy.$obj === patched.$obj) {
    if (isObj(buggy.attrs) && isObj(patched.attrs)) {
      const [b, p] = [buggy.attrs, patched.attrs];
      for (const k of [...new Set([...Object.keys(b), ...Object.keys(p)])]) {
        if (!sameJson(b[k], p[k]))
          return k in b && k in p
            ? firstDifference(b[k], p[k], `${path}.${k}`)
            : {path: `${path}.${k}`, buggy: b[k], patched: p[k]};
      }
    }
    for (const part of ['items', 'value', 'args']) {
      if (!sameJson(buggy[part], patched[part]) && part in buggy && part in patched)
        return firstDifference(buggy[part], patched[part], path) ?? leaf;
    }
  }
  return leaf;
}
