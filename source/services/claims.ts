/**
 * Claims in a run's code reasoning checked against its program's trace: reasoning before the
 * run's first source edit against the buggy program (any traced pair of the instance: its buggy
 * side is the same program), after it against the run's own patch (a pair traced from the run,
 * `trace --trajectory N`, or one whose diff is the run's patch). Confirmed, contradicted or
 * unverifiable — with the evidence (trace, frame, step, recorded value) — and never a guess.
 */
import {claimOf, claimText, valueMatches, type Claim, type Verdict} from '../core/reasoning/claims.js';
import {ROOT_FID, type Item, type StepState} from '../core/trace/model.js';
import {formatValue} from '../core/trace/values.js';
import type {Db} from '../store/db.js';
import {writeTx} from '../store/db.js';
import {instanceOfRun, reasoningOf, setClaim, stepLabels} from '../store/reasoning.js';
import {StoredTrace} from '../store/stored-trace.js';
import {listPairs} from '../store/traces.js';
import {getTrajectory} from '../store/trajectories.js';

export interface Evidence {
  pair: number;
  side: 'buggy' | 'patched';
  trace: number;
  frame: number;
  function: string;
  file: string;
  line: number | null;
  seq: number;
  recorded: string;
}

export interface ClaimCheck {
  step: number;
  span: [number, number];
  claim: Claim;
  text: string;
  verdict: Verdict;
  reason: string;
  evidence: Evidence | null;
  /** a few of the other values recorded at the place, for a contradiction */
  others?: Evidence[];
}

/** How many trace items a search reads at most (a claim past that is unverifiable, said so). */
export const SEARCH_BUDGET = 2_000_000;

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A dotted name's value in a state's variables (attributes of recorded objects followed). */
function lookup(vars: Record<string, unknown>, name: string): {found: boolean; value?: unknown} {
  const [base, ...rest] = name.split('.');
  if (!(base! in vars)) return {found: false};
  let v = vars[base!];
  for (const part of rest) {
    const attrs = isObj(v) && isObj(v.attrs) ? v.attrs : null;
    if (!attrs || !(part in attrs)) return {found: false};
    v = attrs[part];
  }
  return {found: true, value: v};
}

/** Searches one trace for the claim's place: a match, or the other values recorded there. */
function search(t: StoredTrace, claim: Claim, where: {pair: number; side: 'buggy' | 'patched'}): {match: Evidence | null; others: Evidence[]; exhausted: boolean} {
  const others: Evidence[] = [];
  let read = 0;
  const shortName = (fn: string) => fn.replace(/^.*<locals>\./, '').split('.').at(-1)!;
  for (let fid = ROOT_FID + 1; ; fid++) {
    const f = t.frame(fid);
    if (!f) break;
    const ev = (seq: number, line: number | null, recorded: unknown): Evidence => ({...where, trace: t.id, frame: fid, function: f.fn, file: f.file, line, seq, recorded: formatValue(recorded, 300)});
    if (claim.kind === 'return' || claim.kind === 'raises') {
      if (claim.kind === 'return' && shortName(f.fn) === claim.function && f.outcome?.kind === 'return' && !f.outcome.unrecorded && f.outcome.value !== undefined) {
        const v = parse(f.outcome.value);
        const e = ev(-1, f.outcome.line ?? null, v);
        if (valueMatches(claim.value, v)) return {match: e, others, exhausted: false};
        if (others.length < 3) others.push(e);
      }
      if (claim.kind === 'raises' && f.outcome?.kind === 'exception' && f.outcome.exception && (claim.function === null || shortName(f.fn) === claim.function)) {
        const type = f.outcome.exception.type;
        const e = ev(-1, f.outcome.line ?? null, type);
        if (type === claim.exception || type.endsWith(`.${claim.exception}`)) return {match: e, others, exhausted: false};
        if (claim.function !== null && others.length < 3) others.push(e);
      }
      continue;
    }
    // a variable's value: every recorded line of every frame (its items follow its call)
    let after = f.callSeq;
    for (;;) {
      const page: Item[] = t.items(fid, after, 4096);
      if (!page.length) break;
      for (const item of page) {
        after = item.seq;
        if (item.kind === 'call') continue;
        if (++read > SEARCH_BUDGET) return {match: null, others, exhausted: true};
        if (item.hash === -1 || !item.state) continue;
        const st = parse(item.state) as (StepState & {locals?: Record<string, unknown>}) | undefined;
        if (!st) continue;
        const vars = {...(st.full ?? {}), ...(st.locals ?? {}), ...(st.ch ?? {})};
        const got = lookup(vars, claim.name);
        if (!got.found) continue;
        const e = ev(item.seq, item.line, got.value);
        if (valueMatches(claim.value, got.value)) return {match: e, others, exhausted: false};
        if (others.length < 3 && !others.some(o => o.recorded === e.recorded)) others.push(e);
      }
    }
  }
  return {match: null, others, exhausted: false};
}

const patchKey = (p: string | null) => (p ?? '').split('\n').map(l => l.trimEnd()).filter(l => l && !l.startsWith('index ')).join('\n');

/** Checks every claim in a run's code reasoning and stores each verdict with its evidence. */
export function checkClaims(db: Db, trajectory: number): {checks: ClaimCheck[]; traces: {buggy: number | null; patched: number | null}; note: string | null} {
  const run = getTrajectory(db, trajectory);
  const instance = instanceOfRun(db, trajectory);
  if (!run || !instance) return {checks: [], traces: {buggy: null, patched: null}, note: `no trajectory ${trajectory}`};
  const pairs = listPairs(db, instance).filter(p => p.buggyTrace !== null);
  const own = pairs.filter(p => p.trajectory === trajectory || (run.patch && p.patch && patchKey(p.patch) === patchKey(run.patch))).at(-1) ?? null;
  const buggyPair = own ?? pairs.at(-1) ?? null;
  const firstEdit = stepLabels(db, trajectory).find(s => s.rule === 'source-edit')?.idx ?? Infinity;
  const traces = {buggy: buggyPair?.buggyTrace ?? null, patched: own?.patchedTrace ?? null};
  const opened = new Map<number, StoredTrace>();
  const open = (id: number) => opened.get(id) ?? opened.set(id, new StoredTrace(db, id)).get(id)!;
  const checks: ClaimCheck[] = [];
  for (const m of reasoningOf(db, trajectory)) {
    if (m.family === 'obs') continue;
    const claim = claimOf(m);
    if (!claim) continue;
    const after = m.step > firstEdit;
    const pair = after ? own : buggyPair;
    const traceId = after ? traces.patched : traces.buggy;
    const base = {step: m.step, span: m.span, claim, text: claimText(claim)};
    if (!pair || traceId === null) {
      checks.push({...base, verdict: 'unverifiable', reason: after ? "the run's patch was never traced (deltalens trace --trajectory N)" : `no traced pair of ${instance} (its buggy program was never traced)`, evidence: null});
      continue;
    }
    const t = open(traceId);
    const r = search(t, claim, {pair: pair.id, side: after ? 'patched' : 'buggy'});
    if (r.match) checks.push({...base, verdict: 'confirmed', reason: `recorded in ${r.match.function} (${r.match.file}${r.match.line ? `:${r.match.line}` : ''})`, evidence: r.match});
    else if (r.exhausted) checks.push({...base, verdict: 'unverifiable', reason: `the trace is longer than the ${SEARCH_BUDGET} steps a search reads`, evidence: null});
    else if (r.others.length) checks.push({...base, verdict: 'contradicted', reason: `${claim.kind === 'value' ? claim.name : claim.kind === 'return' ? `${claim.function}(…)` : 'the frame'} was recorded with ${r.others.map(o => o.recorded).join(', ')} only`, evidence: r.others[0]!, others: r.others});
    else checks.push({...base, verdict: 'unverifiable', reason: t.status !== 'complete' ? `the trace is ${t.status}` : 'the place is not in the trace, or its values were not recorded there', evidence: null});
  }
  writeTx(db, () => {
    for (const c of checks) setClaim(db, trajectory, c.step, c.span[0], {...c.claim, text: c.text, verdict: c.verdict, reason: c.reason, evidence: c.evidence, ...(c.others ? {others: c.others} : {})});
  });
  const note = !pairs.length ? `no traced pair of ${instance}: every claim is unverifiable` : !own ? "the run's own patch was never traced: claims after its first edit are unverifiable" : null;
  return {checks, traces, note};
}
