/**
 * Delta behaviour (ExplainBench Algorithm 1, as DESIGN.md states it).
 *
 * Walk both frame trees from the entry frame with a cursor per side. Same next item: a
 * call steps into both callees; a finished line whose state differs is a *state* delta.
 * Different next items (a control-flow mismatch, or one frame ending before the other):
 * if the two frames' outcomes differ, an *outcome* delta; else both return to their
 * callers and the walk goes on. Nothing found in two complete traces: ∅.
 *
 * "Same item" means the same statement under the patch's line mapping. A step's state
 * is the set of locals the line changed (the tracer writes only changes), so two steps
 * from equal states lead to equal states exactly when they changed the same names to the
 * same values; at a call, the callee's arguments are compared.
 */

import type {LineMap} from './line-map.js';
import {
  recorded,
  ROOT_FID,
  stateHash,
  type EndState,
  type FrameInfo,
  type FrameValues,
  type Item,
  type Outcome,
  type StepState,
  type TraceSource,
} from './model.js';
import {sameValue, type CompareOptions} from './values.js';

/** The public ExplainBench code's departures from the paper, and ours beyond it, each off by default. */
export const DELTA_OPTIONS = {
  'start-at-patched-function': 'start comparing at the first call of a patch-modified function',
  'no-step-into': 'never step into calls: compare a call by its return value',
  'match-by-text': 'match statements by their source text instead of the line mapping',
  'round-floats': 'compare floats rounded to 3 significant digits',
  docstrings: 'count a docstring the patch edited (and copies of it) as behaviour',
  'identity-order':
    'count the order of a sequence of classes, functions or modules as behaviour (tuple(a set of classes) is ordered by memory address, which any edit can move)',
} as const;
export type DeltaOption = keyof typeof DELTA_OPTIONS;

export interface VariableDiff {
  name: string;
  /** encoded value on each side; absent when the name did not change on that side */
  buggy?: unknown;
  patched?: unknown;
  /** true when the value is unchanged (so equal to the common previous value) on that side */
  unchangedOn?: 'buggy' | 'patched';
}

interface ItemRef {
  kind: Item['kind'] | 'end';
  line: number | null;
  seq: number | null;
  /** a call: the function it calls */
  callee?: string;
}

export interface DeltaResult {
  status: 'found' | 'none' | 'incomplete';
  kind: 'state' | 'outcome' | null;
  function: string | null;
  file: string | null;
  /** the line on the buggy side (patched_line on the other) */
  line: number | null;
  patchedLine: number | null;
  timing: 'before' | 'after' | null;
  seqB: number | null;
  seqP: number | null;
  variables: VariableDiff[];
  /** a callee's arguments that differ: the frame and line that made the call */
  caller?: {function: string; file: string; line: number | null};
  /** outcome deltas: each frame's outcome and the items where control flow split */
  buggyOutcome?: Outcome | null;
  patchedOutcome?: Outcome | null;
  control?: {buggy: ItemRef; patched: ItemRef};
  /** evidence: how much was compared */
  stepsCompared: number;
  framesEntered: number;
  /** state differences ignored because the value differs between two runs of one side */
  ignoredNondeterministic: number;
  reason?: string;
  options: DeltaOption[];
}

export interface Nondeterminism {
  /** `${file}\u0000${function}\u0000${name}` of values that differ between two runs */
  variables: Set<string>;
  /** `${file}\u0000${function}` of functions whose control flow differs between two runs */
  functions: Set<string>;
  /** functions whose frames end differently (result or exception) between two runs */
  outcomes: Set<string>;
}

export const emptyNondeterminism = (): Nondeterminism => ({
  variables: new Set(),
  functions: new Set(),
  outcomes: new Set(),
});

export function mergeNondeterminism(a: Nondeterminism, b: Nondeterminism): Nondeterminism {
  return {
    variables: new Set([...a.variables, ...b.variables]),
    functions: new Set([...a.functions, ...b.functions]),
    outcomes: new Set([...a.outcomes, ...b.outcomes]),
  };
}

const PAGE = 512;

class Cursor {
  private buf: Item[] = [];
  private pos = 0;
  private last: number;
  private exhausted = false;
  /** items taken (matched) so far */
  taken = 0;

  constructor(
    private readonly source: TraceSource,
    readonly frame: FrameInfo,
    startSeq: number,
  ) {
    this.last = startSeq;
  }

  get fid(): number {
    return this.frame.fid;
  }

  peek(): Item | undefined {
    if (this.pos < this.buf.length) return this.buf[this.pos];
    if (this.exhausted) return undefined;
    this.buf = this.source.items(this.frame.fid, this.last, PAGE);
    this.pos = 0;
    if (this.buf.length === 0) this.exhausted = true;
    return this.buf[0];
  }

  take(): Item {
    const item = this.peek()!;
    this.pos += 1;
    this.last = item.seq;
    this.taken += 1;
    return item;
  }
}

function rootFrame(source: TraceSource): FrameInfo {
  return {
    fid: ROOT_FID,
    parent: null,
    fn: '<test>',
    file: '',
    defLine: 0,
    callSeq: 0,
    callLine: null,
    resume: false,
    args: '{}',
    outcome: source.outcome,
  };
}

function parseState(text: string): StepState {
  const parsed = JSON.parse(text) as StepState;
  return {ch: parsed.ch ?? {}, del: parsed.del, full: parsed.full};
}

/** A patched side's locals under their buggy names (a local the patch only renamed). */
function renameKeys<T>(
  obj: Record<string, T> | undefined,
  renamed: Map<string, string> | null,
): Record<string, T> | undefined {
  if (!obj || !renamed) return obj;
  const out: Record<string, T> = {};
  for (const [k, v] of Object.entries(obj)) out[renamed.get(k) ?? k] = v;
  return out;
}

/**
 * Differences between two steps' changes (both applied to the same previous state).
 * `renamed`: patched name → buggy name for locals the patch only renamed.
 */
function stateDiff(
  textB: string,
  textP: string,
  options: CompareOptions,
  renamed: Map<string, string> | null = null,
): VariableDiff[] {
  if (textB === textP) return [];
  const b = parseState(textB);
  const p = parseState(textP);
  if (renamed) {
    p.ch = renameKeys(p.ch, renamed)!;
    p.full = renameKeys(p.full, renamed);
    p.del = p.del?.map(n => renamed.get(n) ?? n);
  }
  const out: VariableDiff[] = [];
  const names = new Set([...Object.keys(b.ch), ...Object.keys(p.ch)]);
  for (const name of names) {
    const inB = name in b.ch;
    const inP = name in p.ch;
    if (inB && inP) {
      if (!sameValue(b.ch[name], p.ch[name], options)) out.push({name, buggy: b.ch[name], patched: p.ch[name]});
    } else if (inB) {
      out.push({name, buggy: b.ch[name], unchangedOn: 'patched', patched: p.full?.[name]});
    } else {
      out.push({name, patched: p.ch[name], unchangedOn: 'buggy', buggy: b.full?.[name]});
    }
  }
  const delB = new Set(b.del ?? []);
  const delP = new Set(p.del ?? []);
  for (const name of new Set([...delB, ...delP])) {
    if (delB.has(name) !== delP.has(name))
      out.push({
        name,
        buggy: delB.has(name) ? '<deleted>' : undefined,
        patched: delP.has(name) ? '<deleted>' : undefined,
      });
  }
  if (b.full && p.full) {
    for (const name of new Set([...Object.keys(b.full), ...Object.keys(p.full)])) {
      if (names.has(name)) continue;
      if (!sameValue(b.full[name], p.full[name], options)) out.push({name, buggy: b.full[name], patched: p.full[name]});
    }
  }
  return out;
}

/** Differences between two argument snapshots (a callee's locals at entry). */
function argsDiff(
  textB: string,
  textP: string,
  options: CompareOptions,
  renamed: Map<string, string> | null = null,
): VariableDiff[] {
  if (textB === textP) return [];
  const b = JSON.parse(textB) as Record<string, unknown>;
  const p = renameKeys(JSON.parse(textP) as Record<string, unknown>, renamed)!;
  const out: VariableDiff[] = [];
  for (const name of new Set([...Object.keys(b), ...Object.keys(p)])) {
    if (!sameValue(b[name], p[name], options)) out.push({name, buggy: b[name], patched: p[name]});
  }
  return out;
}

function endDiff(textB: string, textP: string, options: CompareOptions): VariableDiff[] {
  if (textB === textP) return [];
  const b = JSON.parse(textB) as EndState;
  const p = JSON.parse(textP) as EndState;
  const out: VariableDiff[] = [];
  if (!sameValue(b.value ?? null, p.value ?? null, options))
    out.push({name: '__return__', buggy: b.value ?? null, patched: p.value ?? null});
  const eb = b.exc ? `${b.exc.type}: ${b.exc.message ?? ''}` : undefined;
  const ep = p.exc ? `${p.exc.type}: ${p.exc.message ?? ''}` : undefined;
  if (eb !== ep) out.push({name: '__exception__', buggy: eb ?? null, patched: ep ?? null});
  return out;
}

export function sameOutcome(a: Outcome | null, b: Outcome | null, options: CompareOptions): boolean {
  if (!a || !b) return a === b;
  if (a.kind !== b.kind) return false;
  if ((a.exception?.type ?? null) !== (b.exception?.type ?? null)) return false;
  if ((a.exception?.message ?? null) !== (b.exception?.message ?? null)) return false;
  if (a.value === b.value) return true;
  if (a.value === undefined || b.value === undefined) return false;
  return sameValue(JSON.parse(a.value), JSON.parse(b.value), options);
}

function ref(item: Item | undefined, source: TraceSource): ItemRef {
  if (!item) return {kind: 'end', line: null, seq: null};
  const callee = item.kind === 'call' ? source.frame(item.callee)?.fn : undefined;
  return {kind: item.kind, line: item.line, seq: item.seq, ...(callee ? {callee} : {})};
}

/** How one side went on where control flow split: "call f at line 3", "line 7", "the end". */
export function describeRef(r: ItemRef): string {
  if (r.kind === 'end') return 'the end of the frame';
  if (r.kind === 'call') return `a call of ${r.callee ?? '?'}${r.line !== null ? ` at line ${r.line}` : ''}`;
  if (r.kind === 'line') return `line ${r.line ?? '?'}`;
  return `${r.kind === 'return' ? 'its return' : 'an exception'}${r.line !== null ? ` at line ${r.line}` : ''}`;
}

interface WalkContext {
  buggy: TraceSource;
  patched: TraceSource;
  map: LineMap;
  options?: DeltaOption[];
  nondeterminism?: Nondeterminism;
  /** values that were not recorded are passed over (comparing two runs of one side, where a
   * plan made for the two sides left them out), instead of stopping the walk */
  skipUnrecorded?: boolean;
}

/**
 * How far the walk went into each frame: `taken` items matched, then it left the frame at a
 * mismatch (`ended` false) or both frames ran out (`ended` true). `outcomeOnly`: a callee
 * compared by its outcome alone (no-step-into).
 */
type Leave = (side: 'b' | 'p', frame: FrameInfo, taken: number, ended: boolean, outcomeOnly?: boolean) => void;

class Unrecorded extends Error {}

type Found = Omit<DeltaResult, 'stepsCompared' | 'framesEntered' | 'ignoredNondeterministic' | 'options'>;

/**
 * The walk itself. `onDiff` sees every difference in order and says whether to stop
 * (delta extraction stops at the first; the nondeterminism pass collects them all).
 */
function walk(
  ctx: WalkContext,
  onDiff: (found: Found, frames: {b: FrameInfo; p: FrameInfo}) => 'stop' | 'continue',
  onMismatch?: (frame: FrameInfo) => void,
  plan?: {onLeave: Leave},
): {stopped: boolean; incomplete?: string; steps: number; frames: number; ignored: number} {
  try {
    return walkInner(ctx, onDiff, onMismatch, plan);
  } catch (error) {
    if (!(error instanceof Unrecorded)) throw error;
    return {stopped: false, steps: 0, frames: 0, ignored: 0, incomplete: error.message};
  }
}

function walkInner(
  ctx: WalkContext,
  onDiff: (found: Found, frames: {b: FrameInfo; p: FrameInfo}) => 'stop' | 'continue',
  onMismatch?: (frame: FrameInfo) => void,
  plan?: {onLeave: Leave},
): {stopped: boolean; incomplete?: string; steps: number; frames: number; ignored: number} {
  // planning: every value is taken as equal (the skeleton runs have none); the walk then visits
  // every item a walk over the values could, and `onLeave` says how far into each frame
  const assumeEqual = plan !== undefined;
  const skip = ctx.skipUnrecorded === true;
  const unrecorded = (what: string, frame: FrameInfo, line: number | null) => {
    throw new Unrecorded(
      `values were not recorded where the walk compares them (${what} in ${frame.fn}${line !== null ? `:${line}` : ''}); trace again with values everywhere (--values all)`,
    );
  };
  const options = new Set(ctx.options ?? []);
  const cmp: CompareOptions = {
    roundFloats: options.has('round-floats'),
    docstrings: options.has('docstrings'),
    identityOrder: options.has('identity-order'),
  };
  const {buggy: B, patched: P, map} = ctx;
  const nondet = ctx.nondeterminism;
  let steps = 0;
  let frames = 0;
  let ignored = 0;

  const stackB: Cursor[] = [];
  const stackP: Cursor[] = [];
  if (options.has('start-at-patched-function')) {
    const start = firstModifiedFrames(ctx);
    if (!start) return {stopped: false, steps, frames, ignored, incomplete: undefined};
    stackB.push(new Cursor(B, start.b, start.b.callSeq));
    stackP.push(new Cursor(P, start.p, start.p.callSeq));
  } else {
    stackB.push(new Cursor(B, rootFrame(B), 0));
    stackP.push(new Cursor(P, rootFrame(P), 0));
  }

  const filterNondet = (frame: FrameInfo, diffs: VariableDiff[]): VariableDiff[] => {
    if (!nondet || nondet.variables.size === 0) return diffs;
    const kept = diffs.filter(d => !nondet.variables.has(`${frame.file}\u0000${frame.fn}\u0000${d.name}`));
    ignored += diffs.length - kept.length;
    return kept;
  };

  const sameStatement = (frame: FrameInfo, pframe: FrameInfo, lb: number | null, lp: number | null): boolean => {
    if (options.has('match-by-text') && lb !== null && lp !== null && B.sourceLine && P.sourceLine) {
      const tb = B.sourceLine(frame.file, lb);
      const tp = P.sourceLine(pframe.file, lp);
      if (tb !== undefined && tp !== undefined) return tb.trim() === tp.trim();
    }
    return map.same(frame.file, lb, lp);
  };

  /** Where a pair of matched items is: the frame, both lines, both seqs. */
  const at = (frame: FrameInfo, b: Item, p: Item) => ({
    function: frame.fn,
    file: frame.file,
    line: b.line,
    patchedLine: p.line,
    seqB: b.seq,
    seqP: p.seq,
  });

  while (stackB.length && stackP.length) {
    const cb = stackB.at(-1)!;
    const cp = stackP.at(-1)!;
    const nb = cb.peek();
    const np = cp.peek();
    if (!nb && !np) {
      plan?.onLeave('b', cb.frame, cb.taken, true);
      plan?.onLeave('p', cp.frame, cp.taken, true);
      stackB.pop();
      stackP.pop();
      continue;
    }
    let match = false;
    let calleeB: FrameInfo | undefined;
    let calleeP: FrameInfo | undefined;
    if (nb && np && nb.kind === np.kind) {
      if (nb.kind === 'call' && np.kind === 'call') {
        calleeB = B.frame(nb.callee);
        calleeP = P.frame(np.callee);
        match =
          calleeB !== undefined &&
          calleeP !== undefined &&
          calleeB.fn === calleeP.fn &&
          calleeB.file === calleeP.file &&
          (cb.fid === ROOT_FID || sameStatement(cb.frame, cp.frame, nb.line, np.line));
      } else {
        match = sameStatement(cb.frame, cp.frame, nb.line, np.line);
      }
    }

    if (match) {
      const ib = cb.take();
      const ip = cp.take();
      steps += 1;
      if (ib.kind === 'call' && calleeB && calleeP) {
        const argsMissing = calleeB.args === '' || calleeP.args === '';
        if (!assumeEqual && !skip && argsMissing) unrecorded('arguments', calleeB, calleeB.defLine);
        const argDiffs =
          assumeEqual || argsMissing
            ? []
            : filterNondet(calleeB, argsDiff(calleeB.args, calleeP.args, cmp, map.renamed(calleeB.file, calleeB.fn)));
        if (argDiffs.length) {
          const verdict = onDiff(
            {
              status: 'found',
              kind: 'state',
              function: calleeB.fn,
              file: calleeB.file,
              line: calleeB.defLine,
              patchedLine: calleeP.defLine,
              timing: 'before',
              seqB: ib.seq,
              seqP: ip.seq,
              variables: argDiffs,
              ...(cb.fid !== ROOT_FID ? {caller: {function: cb.frame.fn, file: cb.frame.file, line: ib.line}} : {}),
            },
            {b: calleeB, p: calleeP},
          );
          if (verdict === 'stop') return {stopped: true, steps, frames, ignored};
        }
        if (options.has('no-step-into') && cb.fid !== ROOT_FID) {
          plan?.onLeave('b', calleeB, 0, false, true);
          plan?.onLeave('p', calleeP, 0, false, true);
          const resultMissing = Boolean(calleeB.outcome?.unrecorded || calleeP.outcome?.unrecorded);
          if (!assumeEqual && !skip && resultMissing) unrecorded('a result', calleeB, calleeB.defLine);
          if (!assumeEqual && !resultMissing && !sameOutcome(calleeB.outcome, calleeP.outcome, cmp)) {
            const verdict = onDiff(
              {
                status: 'found',
                kind: 'outcome',
                ...at(cb.frame, ib, ip),
                timing: 'after',
                variables: [],
                buggyOutcome: calleeB.outcome,
                patchedOutcome: calleeP.outcome,
              },
              {b: cb.frame, p: cp.frame},
            );
            if (verdict === 'stop') return {stopped: true, steps, frames, ignored};
          }
          continue;
        }
        frames += 1;
        stackB.push(new Cursor(B, calleeB, calleeB.callSeq));
        stackP.push(new Cursor(P, calleeP, calleeP.callSeq));
        continue;
      }
      if (ib.kind === 'call' || ip.kind === 'call') continue;
      if (assumeEqual) continue;
      if (!recorded(ib) || !recorded(ip)) {
        if (skip) continue;
        unrecorded(ib.kind === 'line' ? 'a line' : 'a result', cb.frame, ib.line);
      }
      // equal hashes: equal states, without reading either text
      const sameHash = 'hash' in ib && 'hash' in ip && ib.hash === ip.hash;
      const diffs = sameHash
        ? []
        : filterNondet(
            cb.frame,
            ib.kind === 'line'
              ? stateDiff(ib.state, ip.state, cmp, map.renamed(cb.frame.file, cb.frame.fn))
              : endDiff(ib.state, ip.state, cmp),
          );
      if (diffs.length) {
        const verdict = onDiff(
          {status: 'found', kind: 'state', ...at(cb.frame, ib, ip), timing: 'after', variables: diffs},
          {b: cb.frame, p: cp.frame},
        );
        if (verdict === 'stop') return {stopped: true, steps, frames, ignored};
      }
      continue;
    }

    // Control-flow mismatch: compare the frames' outcomes, else return to the callers.
    const ob = cb.frame.outcome;
    const op = cp.frame.outcome;
    plan?.onLeave('b', cb.frame, cb.taken, false);
    plan?.onLeave('p', cp.frame, cp.taken, false);
    if (assumeEqual) {
      stackB.pop();
      stackP.pop();
      continue;
    }
    if (ob === null || op === null) {
      const side = ob === null ? 'buggy' : 'patched';
      return {
        stopped: false,
        steps,
        frames,
        ignored,
        incomplete: `the ${side} frame ${(ob === null ? cb : cp).frame.fn} never ended in its trace`,
      };
    }
    // A frame whose result differs between two runs of the same program (control flow that
    // shuffles, a clock) is no evidence of a delta when it differs between the sides too.
    if (cb.fid !== ROOT_FID && (ob.unrecorded || op.unrecorded)) {
      if (!skip) unrecorded('a result', cb.frame, nb?.line ?? null);
      onMismatch?.(cb.frame);
      stackB.pop();
      stackP.pop();
      continue;
    }
    const nondetOutcome = nondet?.outcomes.has(`${cb.frame.file}\u0000${cb.frame.fn}`) ?? false;
    if (!sameOutcome(ob, op, cmp) && nondetOutcome) ignored += 1;
    else if (!sameOutcome(ob, op, cmp)) {
      const verdict = onDiff(
        {
          status: 'found',
          kind: 'outcome',
          function: cb.frame.fn,
          file: cb.frame.file || null,
          line: nb?.line ?? ob.line ?? null,
          patchedLine: np?.line ?? op.line ?? null,
          timing: 'before',
          seqB: nb?.seq ?? null,
          seqP: np?.seq ?? null,
          variables: [],
          buggyOutcome: ob,
          patchedOutcome: op,
          control: {buggy: ref(nb, B), patched: ref(np, P)},
        },
        {b: cb.frame, p: cp.frame},
      );
      if (verdict === 'stop') return {stopped: true, steps, frames, ignored};
    }
    onMismatch?.(cb.frame);
    stackB.pop();
    stackP.pop();
  }
  return {stopped: false, steps, frames, ignored};
}

function firstModifiedFrames(ctx: WalkContext): {b: FrameInfo; p: FrameInfo} | undefined {
  const find = (source: TraceSource): FrameInfo | undefined => {
    let best: FrameInfo | undefined;
    for (const fn of ctx.map.modifiedFunctions()) {
      const frame = source.findFrame?.(fn.file, fn.qualname);
      if (frame && (!best || frame.callSeq < best.callSeq)) best = frame;
    }
    return best;
  };
  const b = find(ctx.buggy);
  const p = find(ctx.patched);
  return b && p && b.fn === p.fn ? {b, p} : undefined;
}

export function extractDelta(ctx: WalkContext): DeltaResult {
  const options = [...(ctx.options ?? [])].sort() as DeltaOption[];
  let found: Found | undefined;
  const result = walk(ctx, f => {
    found = f;
    return 'stop';
  });
  const base = {
    stepsCompared: result.steps,
    framesEntered: result.frames,
    ignoredNondeterministic: result.ignored,
    options,
  };
  const empty = {
    kind: null,
    function: null,
    file: null,
    line: null,
    patchedLine: null,
    timing: null,
    seqB: null,
    seqP: null,
    variables: [] as VariableDiff[],
  };
  // A test that did not run on one side (not found, not collected, errored or skipped in its
  // setup) leaves nothing to compare, whatever the walk found in the other side's frames.
  const notRunSides = [ctx.buggy, ctx.patched]
    .map((s, i) => (s.status === 'error' ? (i === 0 ? 'buggy' : 'patched') : null))
    .filter(Boolean);
  if (notRunSides.length) {
    return {
      ...empty,
      ...base,
      status: 'incomplete',
      reason: `the test did not run on the ${notRunSides.join(' and the ')} side${notRunSides.length > 1 ? 's' : ''}`,
    };
  }
  if (found) return {...found, ...base};
  const incomplete = [ctx.buggy, ctx.patched]
    .map((s, i) => (s.status === 'complete' ? null : `${i === 0 ? 'buggy' : 'patched'} trace ${s.status}`))
    .filter(Boolean);
  if (result.incomplete || incomplete.length) {
    return {
      ...empty,
      ...base,
      status: 'incomplete',
      reason: [...incomplete, result.incomplete].filter(Boolean).join('; '),
    };
  }
  // Safety net beyond Algorithm 1: the root frame's items can all match (or be absent,
  // when the patch-modified functions never ran) while the test outcomes differ — the
  // change acted outside the recorded frames. That is not "no effect".
  if (!sameOutcome(ctx.buggy.outcome, ctx.patched.outcome, {})) {
    return {
      ...empty,
      ...base,
      status: 'found',
      kind: 'outcome',
      function: '<test>',
      timing: 'after',
      buggyOutcome: ctx.buggy.outcome,
      patchedOutcome: ctx.patched.outcome,
      reason: 'no recorded step differs, but the test outcomes do: the patch acts outside the recorded frames',
    };
  }
  if (options.includes('start-at-patched-function') && result.steps === 0) {
    return {...empty, ...base, status: 'none', reason: 'no patch-modified function was called on both sides'};
  }
  const outcome = ctx.buggy.outcome?.kind ?? '?';
  if (result.steps === 0) {
    return {
      ...empty,
      ...base,
      status: 'none',
      reason: `no patch-modified function ran on either side (nothing recorded); the test ${outcome} on both`,
    };
  }
  return {
    ...empty,
    ...base,
    status: 'none',
    reason: `both runs identical over ${result.steps} aligned steps in ${result.frames} frames; the test ${outcome} on both`,
  };
}

/**
 * Two runs of the same program version: every value that differs between them is
 * nondeterministic (time, randomness, ids), and so is the control flow of a function
 * whose runs diverge. The delta extraction ignores those values.
 */
export function collectNondeterminism(first: TraceSource, second: TraceSource, map: LineMap): Nondeterminism {
  const out = emptyNondeterminism();
  walk(
    {buggy: first, patched: second, map, skipUnrecorded: true},
    (found, frames) => {
      if (found.kind === 'state') {
        for (const v of found.variables) out.variables.add(`${frames.b.file}\u0000${frames.b.fn}\u0000${v.name}`);
      } else {
        out.functions.add(`${frames.b.file}\u0000${frames.b.fn}`);
        out.outcomes.add(`${frames.b.file}\u0000${frames.b.fn}`);
      }
      return 'continue';
    },
    frame => {
      if (frame.fid !== ROOT_FID) out.functions.add(`${frame.file}\u0000${frame.fn}`);
    },
  );
  return out;
}

/**
 * Two runs of one side, compared function by function rather than along one walk: a function
 * whose results (or an argument) in one run include a value the other run never saw for it is
 * nondeterministic — a hash derived from an object's address, a clock. The walk alone misses
 * such a function when control flow already varies before it (address-derived hashes reorder
 * sets and dicts), and then the same value, different between the sides, would be taken for the
 * delta. The run with fewer valued frames of a function is checked against the other (a
 * confirming run values only the frames of the delta point).
 */
export function valueNondeterminism(first: Iterable<FrameValues>, second: Iterable<FrameValues>): Nondeterminism {
  type Seen = {frames: number; returns: Set<number>; args: Map<string, Set<number>>};
  const collect = (frames: Iterable<FrameValues>) => {
    const out = new Map<string, Seen>();
    for (const f of frames) {
      const value = f.outcome && !f.outcome.unrecorded && f.outcome.kind === 'return' ? f.outcome.value : undefined;
      if (value === undefined && !f.args) continue;
      const key = `${f.file}\u0000${f.fn}`;
      let seen = out.get(key);
      if (!seen) out.set(key, (seen = {frames: 0, returns: new Set(), args: new Map()}));
      seen.frames += 1;
      if (value !== undefined) seen.returns.add(stateHash(value));
      if (f.args) {
        for (const [name, v] of Object.entries(JSON.parse(f.args) as Record<string, unknown>)) {
          let set = seen.args.get(name);
          if (!set) seen.args.set(name, (set = new Set()));
          set.add(stateHash(JSON.stringify(v)));
        }
      }
    }
    return out;
  };
  const a = collect(first);
  const b = collect(second);
  const out = emptyNondeterminism();
  const within = (small: Set<number>, large: Set<number>) => [...small].every(h => large.has(h));
  for (const [key, sa] of a) {
    const sb = b.get(key);
    if (!sb) continue;
    const [small, large] = sa.frames <= sb.frames ? [sa, sb] : [sb, sa];
    if (small.returns.size && large.returns.size && !within(small.returns, large.returns)) {
      out.variables.add(`${key}\u0000__return__`);
      out.outcomes.add(key);
    }
    for (const [name, values] of small.args) {
      const other = large.args.get(name);
      if (other && !within(values, other)) out.variables.add(`${key}\u0000${name}`);
    }
  }
  return out;
}

/**
 * Where a valued run must record values for the walk over two traces to be exact: walking two
 * skeleton traces (control flow only) with every value taken as equal visits every item a walk
 * over the values could (that walk stops at its first difference, earlier or at the same place).
 * Per side and frame: -1 every item and the result, k the first k items and the result, -2 the
 * arguments and the result (a callee compared by outcome), 0 nothing. Where control flow splits
 * inside a frame, PLAN_MARGIN items past the split get values too, for the person who steps there.
 */
interface ValuePlan {
  buggy: number[];
  patched: number[];
  /** frames that get values, per side */
  valued: {buggy: number; patched: number};
}

const PLAN_MARGIN = 64;

export function planValues(ctx: WalkContext): ValuePlan {
  const cuts = {b: new Map<number, number>(), p: new Map<number, number>()};
  walk(ctx, () => 'continue', undefined, {
    onLeave: (side, frame, taken, ended, outcomeOnly) => {
      if (frame.fid === ROOT_FID) return;
      cuts[side].set(frame.fid, outcomeOnly ? -2 : ended ? -1 : taken + PLAN_MARGIN);
    },
  });
  const dense = (m: Map<number, number>): number[] => {
    let max = 0;
    for (const fid of m.keys()) if (fid > max) max = fid;
    const out = new Array<number>(max + 1).fill(0);
    for (const [fid, cut] of m) out[fid] = cut;
    return out;
  };
  return {buggy: dense(cuts.b), patched: dense(cuts.p), valued: {buggy: cuts.b.size, patched: cuts.p.size}};
}

/**
 * Values only where found deltas are, for the re-run that confirms them: for each point, every
 * frame from the one holding the delta's item up to the test (their items and results), and
 * the callee when the item is a call. Everything else is control flow only. Dense cuts as in
 * planValues.
 */
export function confirmationPlan(
  source: TraceSource,
  points: readonly ({fid: number; callee: number | null} | null)[],
): number[] {
  const fids = new Set<number>();
  const chains = new Set<number>();
  for (const at of points) {
    if (!at) continue;
    if (at.callee !== null) fids.add(at.callee);
    // chains meet on the way up: the rest of the way is already in
    for (let fid: number | null = at.fid; fid !== null && fid !== ROOT_FID && !chains.has(fid); ) {
      chains.add(fid);
      fids.add(fid);
      fid = source.frame(fid)?.parent ?? null;
    }
  }
  let max = -1;
  for (const fid of fids) if (fid > max) max = fid;
  const out = new Array<number>(max + 1).fill(0);
  for (const fid of fids) out[fid] = -1;
  return out;
}
