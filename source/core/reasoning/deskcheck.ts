/**
 * The `deskcheck` detector: the DeskCheck artifact's code-reasoning scan, deciding as the artifact
 * does (its tables in deskcheck-patterns.ts, its defaults as the paper's sets were run:
 * `--no-top-level-only --min-score 1`):
 *
 * 1. a thought of 50 to 500,000 characters, with `<pr_description>` blocks and code fences
 *    replaced by a newline and runs of two or more numbered listing lines removed, is scanned
 *    for code tokens in prose (17 kinds: backticked identifiers, calls, attribute reads, …); a
 *    token counts when the 300-character window around it holds at least one common English
 *    word, and each kind keeps the window with the most such words (the first, on a tie);
 * 2. a turn with at least one kind of code token qualifies, and every kept window is read by
 *    the five families' patterns (variable state, call dependency, output, loop, conditional)
 *    and the "others" ones (exceptions, mismatches);
 * 3. a run has code reasoning when at least two distinct windows carry a family's kinds (others
 *    left out) and at least one of them more than an observation ("verified-behavior").
 *
 * Where the artifact's help and code disagree, the code is followed: `--min-score` says "default
 * 2" in find_execution_reasoning.py (the code: 1), `--prose-hits` says "default 3" in
 * find_code_tokens_in_prose.py (the code: 1). Python's `\w` and `\b` are Unicode-aware and
 * JavaScript's are not, and a case-sensitive part inside a case-insensitive pattern (`(?-i:…)`,
 * which Node 20 cannot compile) is checked after the match: on text outside ASCII, or where another
 * alternative of such a pattern would have matched, the decisions can differ. Pure.
 */
import type {MarkFamily, ReasoningMark} from './detect.js';
import {DESKCHECK} from './deskcheck-patterns.js';

type DeskFamily = 'state' | 'call_dep' | 'output' | 'loop' | 'cond' | 'others';

/** The artifact's families as ours: output and others are DeskCheck's "output and exceptions" (E). */
const DESK_FAMILY: Record<DeskFamily, Exclude<MarkFamily, 'obs'>> = {
  state: 'A',
  call_dep: 'B',
  loop: 'C',
  cond: 'D',
  output: 'E',
  others: 'E',
};
const DESK_FLAG: Record<DeskFamily, string> = {
  state: 'has_state_strong',
  call_dep: 'has_call_dep',
  output: 'has_output_talk',
  loop: 'has_loop_talk',
  cond: 'has_cond_talk',
  others: 'has_others_talk',
};

interface Compiled {
  re: RegExp;
  /** case-sensitive parts of a case-insensitive pattern, checked after a match */
  checks: {name: string; re: RegExp}[];
}

/** A Python pattern as a JavaScript one: `(?-i:X)` becomes a named group checked after the match. */
function compile(source: string, flags: string): Compiled {
  const checks: {name: string; re: RegExp}[] = [];
  let out = '';
  for (let i = 0; i < source.length; i++) {
    if (source.startsWith('(?-i:', i)) {
      let depth = 1;
      let j = i + 5;
      for (; j < source.length && depth; j++) {
        if (source[j] === '\\') j++;
        else if (source[j] === '(') depth++;
        else if (source[j] === ')') depth--;
      }
      const inner = source.slice(i + 5, j - 1);
      const name = `cs${checks.length}`;
      checks.push({name, re: new RegExp(`^(?:${inner})$`)});
      out += `(?<${name}>${inner})`;
      i = j - 1;
      continue;
    }
    if (source[i] === '\\') {
      out += source.slice(i, i + 2);
      i++;
      continue;
    }
    out += source[i];
  }
  return {re: new RegExp(out, `${flags}g`), checks};
}

/** re.finditer: leftmost matches in order; a match failing a case-sensitive part is no match there. */
function* finditer(c: Compiled, text: string): Generator<RegExpExecArray> {
  let at = 0;
  while (at <= text.length) {
    c.re.lastIndex = at;
    const m = c.re.exec(text);
    if (!m) return;
    if (c.checks.some(k => m.groups?.[k.name] !== undefined && !k.re.test(m.groups[k.name]!))) {
      at = m.index + 1;
      continue;
    }
    yield m;
    at = m[0].length ? m.index + m[0].length : m.index + 1;
  }
}

/** The artifact's patterns, compiled on first use (not when a module that can call them loads). */
let compiled: {
  FENCE: Compiled;
  LINE_NUMBERED: RegExp;
  PR: Compiled;
  PROSE: Compiled;
  TOKENS: {c: Compiled; label: string}[];
  FAMILIES: Record<DeskFamily, {c: Compiled; kind: string}[]>;
} | null = null;
function tables() {
  compiled ??= {
    FENCE: compile(DESKCHECK.fence, 's'),
    LINE_NUMBERED: new RegExp(DESKCHECK.line_numbered),
    PR: compile(DESKCHECK.pr_description, 'is'),
    PROSE: compile(DESKCHECK.prose_context, 'i'),
    TOKENS: DESKCHECK.code_tokens.map(([src, label]) => ({c: compile(src, ''), label})),
    FAMILIES: Object.fromEntries(
      Object.entries(DESKCHECK.families).map(([fam, ps]) => [
        fam,
        ps.map(([src, kind]) => ({c: compile(src, 'i'), kind})),
      ]),
    ) as Record<DeskFamily, {c: Compiled; kind: string}[]>,
  };
  return compiled;
}
const D = DESKCHECK.defaults;

/** Text with each match of `c` replaced by a newline, and where each kept character came from. */
function substitute(text: string, map: number[], c: Compiled): {text: string; map: number[]} {
  let out = '';
  const outMap: number[] = [];
  let last = 0;
  for (const m of finditer(c, text)) {
    out += text.slice(last, m.index);
    for (let k = last; k < m.index; k++) outMap.push(map[k]!);
    out += '\n';
    outMap.push(map[m.index] ?? map.length);
    last = m.index + m[0].length;
  }
  out += text.slice(last);
  for (let k = last; k < text.length; k++) outMap.push(map[k]!);
  return {text: out, map: outMap};
}

/** The artifact's cleaning (pr_description, fences, numbered listings), with an index map back. */
export function deskcheckClean(thought: string): {text: string; map: number[]} {
  const {PR, FENCE, LINE_NUMBERED} = tables();
  let r = {text: thought, map: Array.from({length: thought.length}, (_, i) => i)};
  r = substitute(r.text, r.map, PR);
  r = substitute(r.text, r.map, FENCE);
  const lines = r.text.split('\n');
  const starts: number[] = [];
  let pos = 0;
  for (const l of lines) {
    starts.push(pos);
    pos += l.length + 1;
  }
  const keep: number[] = [];
  for (let i = 0; i < lines.length; ) {
    if (LINE_NUMBERED.test(lines[i]!)) {
      let j = i;
      while (j < lines.length && LINE_NUMBERED.test(lines[j]!)) j++;
      if (j - i >= 2) {
        i = j;
        continue;
      }
    }
    keep.push(i);
    i++;
  }
  let text = '';
  const map: number[] = [];
  keep.forEach((li, n) => {
    if (n > 0) {
      text += '\n';
      map.push(r.map[starts[li]! - 1] ?? 0);
    }
    text += lines[li]!;
    for (let k = 0; k < lines[li]!.length; k++) map.push(r.map[starts[li]! + k]!);
  });
  return {text, map};
}

interface Snippet {
  text: string;
  /** where the snippet's first character after "..." sits in the cleaned text */
  from: number;
  prefix: number;
}

/** extract_context: 150 characters each side, newlines as spaces, stripped, "..." where cut. */
function context(text: string, start: number, end: number): Snippet {
  const s = Math.max(0, start - 150);
  const e = Math.min(text.length, end + 150);
  const raw = text.slice(s, e).replace(/\n/g, ' ');
  const lead = raw.length - raw.trimStart().length;
  const prefix = s > 0 ? 3 : 0;
  return {text: `${s > 0 ? '...' : ''}${raw.trim()}${e < text.length ? '...' : ''}`, from: s + lead, prefix};
}

const count = (c: Compiled, text: string) => {
  let n = 0;
  for (const _ of finditer(c, text)) n++;
  return n;
};

export interface DeskcheckTurn {
  /** the code-token kinds found in prose (the turn's score is how many) */
  labels: string[];
  /** the families' kinds on the kept windows */
  kinds: Partial<Record<DeskFamily, string[]>>;
  flags: string[];
  /** distinct windows carrying a family's kinds (others left out), and those beyond observations */
  reasoningSnippets: string[];
  coreSnippets: string[];
  marks: ReasoningMark[];
}

/** One thought as the artifact scans it; null when the turn does not qualify. */
export function deskcheckTurn(thought: string | null): DeskcheckTurn | null {
  if (!thought || thought.length < D.min_thought_chars || thought.length > D.max_thought_chars) return null;
  const {TOKENS, FAMILIES, PROSE} = tables();
  const cleaned = deskcheckClean(thought);
  const text = cleaned.text;
  if (text.length < D.min_thought_chars) return null;
  const kept: {label: string; snippet: Snippet; hits: number}[] = [];
  for (const {c, label} of TOKENS) {
    let best: Snippet | null = null;
    let bestHits = 0;
    let tokens = 0;
    for (const m of finditer(c, text)) {
      const snippet = context(text, m.index, m.index + m[0].length);
      const hits = count(PROSE, snippet.text);
      if (hits < D.prose_hits) continue;
      tokens++;
      if (hits > bestHits) {
        bestHits = hits;
        best = snippet;
      }
    }
    if (tokens && best) kept.push({label, snippet: best, hits: bestHits});
  }
  if (kept.length < D.min_score) return null;
  const kinds: Partial<Record<DeskFamily, Set<string>>> = {};
  const reasoning = new Set<string>();
  const core = new Set<string>();
  const marks: ReasoningMark[] = [];
  const seen = new Set<string>();
  // a window kept for several labels is read once (the same text gives the same kinds)
  const read = new Map<string, {fam: DeskFamily; kind: string; index: number; length: number}[]>();
  for (const k of kept) {
    let found = read.get(k.snippet.text);
    if (!found) {
      found = [];
      for (const fam of Object.keys(FAMILIES) as DeskFamily[])
        for (const {c, kind} of FAMILIES[fam])
          for (const m of finditer(c, k.snippet.text)) found.push({fam, kind, index: m.index, length: m[0].length});
      read.set(k.snippet.text, found);
    }
    const decision = new Set<string>();
    for (const {fam, kind, index, length} of found) {
      (kinds[fam] ??= new Set()).add(kind);
      if (fam !== 'others') decision.add(kind);
      // the phrase's place in the thought (through the window and the cleaning)
      const at = k.snippet.from + Math.max(0, index - k.snippet.prefix);
      const endAt = Math.min(text.length, k.snippet.from + Math.max(0, index + length - k.snippet.prefix));
      const span: [number, number] = [cleaned.map[at] ?? 0, endAt > 0 ? (cleaned.map[endAt - 1] ?? 0) + 1 : 0];
      const family: MarkFamily = DESKCHECK.observation_kinds.includes(kind as never) ? 'obs' : DESK_FAMILY[fam];
      const key = `${family}/${kind}/${span[0]}`;
      if (!seen.has(key)) {
        seen.add(key);
        marks.push({family, kind, span, text: thought.slice(span[0], span[1])});
      }
    }
    if (decision.size) {
      reasoning.add(k.snippet.text);
      if ([...decision].some(x => !DESKCHECK.observation_kinds.includes(x as never))) core.add(k.snippet.text);
    }
  }
  const fams = Object.keys(kinds) as DeskFamily[];
  return {
    labels: kept.map(k => k.label).sort(),
    kinds: Object.fromEntries(fams.sort().map(f => [f, [...kinds[f]!].sort()])),
    flags: fams.map(f => DESK_FLAG[f]).sort(),
    reasoningSnippets: [...reasoning],
    coreSnippets: [...core],
    marks: marks.sort((a, b) => a.span[0] - b.span[0]),
  };
}

/** A run's decision: two distinct windows with reasoning kinds, one beyond observations. */
export function deskcheckRun(turns: (DeskcheckTurn | null)[]): {
  hasCodeReasoning: boolean;
  reasoningSnippets: number;
  coreSnippets: number;
} {
  const any = new Set(turns.flatMap(t => t?.reasoningSnippets ?? []));
  const core = new Set(turns.flatMap(t => t?.coreSnippets ?? []));
  return {
    hasCodeReasoning: any.size >= D.min_reasoning_snippets && core.size >= 1,
    reasoningSnippets: any.size,
    coreSnippets: core.size,
  };
}
