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

interface Evidence {
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

interface ClaimCheck {
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
const SEARCH_BUDGET = 2_000_000;

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

/** One claim looked for in a trace: a match, or the other values recorded at its place. */
interface Hunt {
  claim: Claim;
  match: Evidence | null;
  others: Evidence[];
  exhausted: boolean;
}

/**
 * Looks for every claim against one trace in a single pass over it: each frame's outcome for the
 * return/raise claims, each recorded line for the value claims (at most SEARCH_BUDGET items read;
 * a value claim still open then is `exhausted`). Stops once every claim has its match.
 */
function search(t: StoredTrace, hunts: Hunt[], where: {pair: number; side: 'buggy' | 'patched'}): void {
  let read = 0;
  const shortName = (fn: string) =>
    fn
      .replace(/^.*<locals>\./, '')
      .split('.')
      .at(-1)!;
  const open = () => hunts.filter(h => !h.match && !h.exhausted);
  for (let fid = ROOT_FID + 1; open().length; fid++) {
    const f = t.frame(fid);
    if (!f) break;
    const ev = (seq: number, line: number | null, recorded: unknown): Evidence => ({
      ...where,
      trace: t.id,
      frame: fid,
      function: f.fn,
      file: f.file,
      line,
      seq,
      recorded: formatValue(recorded, 300),
    });
    for (const h of open()) {
      const claim = h.claim;
      if (
        claim.kind === 'return' &&
        shortName(f.fn) === claim.function &&
        f.outcome?.kind === 'return' &&
        !f.outcome.unrecorded &&
        f.outcome.value !== undefined
      ) {
        const v = parse(f.outcome.value);
        const e = ev(-1, f.outcome.line ?? null, v);
        if (valueMatches(claim.value, v)) h.match = e;
        else if (h.others.length < 3) h.others.push(e);
      }
      if (
        claim.kind === 'raises' &&
        f.outcome?.kind === 'exception' &&
        f.outcome.exception &&
        (claim.function === null || shortName(f.fn) === claim.function)
      ) {
        const type = f.outcome.exception.type;
        const e = ev(-1, f.outcome.line ?? null, type);
        if (type === claim.exception || type.endsWith(`.${claim.exception}`)) h.match = e;
        else if (claim.function !== null && h.others.length < 3) h.others.push(e);
      }
    }
    // a variable's value: every recorded line of every frame (its items follow its call)
    let values = open().filter(h => h.claim.kind === 'value');
    let after = f.callSeq;
    while (values.length) {
      const page: Item[] = t.items(fid, after, 4096);
      if (!page.length) break;
      for (const item of page) {
        after = item.seq;
        if (item.kind === 'call') continue;
        if (++read > SEARCH_BUDGET) {
          for (const h of values) h.exhausted = true;
          return;
        }
        if (item.hash === -1 || !item.state) continue;
        const st = parse(item.state) as (StepState & {locals?: Record<string, unknown>}) | undefined;
        if (!st) continue;
        const vars = {...(st.full ?? {}), ...(st.locals ?? {}), ...(st.ch ?? {})};
        for (const h of values) {
          const claim = h.claim as Extract<Claim, {kind: 'value'}>;
          const got = lookup(vars, claim.name);
          if (!got.found) continue;
          const e = ev(item.seq, item.line, got.value);
          if (valueMatches(claim.value, got.value)) h.match = e;
          else if (h.others.length < 3 && !h.others.some(o => o.recorded === e.recorded)) h.others.push(e);
        }
        values = values.filter(h => !h.match);
        if (!values.length) break;
      }
    }
  }
}

const patchKey = (p: string | null) =>
  (p ?? '')
    .split('\n')
    .map(l => l.trimEnd())
    .filter(l => l && !l.startsWith('index '))
    .join('\n');

/** Checks every claim in a run's code reasoning and stores each verdict with its evidence. */
export function checkClaims(
  db: Db,
  trajectory: number,
): {checks: ClaimCheck[]; traces: {buggy: number | null; patched: number | null}; note: string | null} {
  const run = getTrajectory(db, trajectory);
  const instance = instanceOfRun(db, trajectory);
  if (!run || !instance) return {checks: [], traces: {buggy: null, patched: null}, note: `no trajectory ${trajectory}`};
  const pairs = listPairs(db, instance).filter(p => p.buggyTrace !== null);
  const own =
    pairs
      .filter(p => p.trajectory === trajectory || (run.patch && p.patch && patchKey(p.patch) === patchKey(run.patch)))
      .at(-1) ?? null;
  const buggyPair = own ?? pairs.at(-1) ?? null;
  const firstEdit = stepLabels(db, trajectory).find(s => s.rule === 'source-edit')?.idx ?? Infinity;
  const traces = {buggy: buggyPair?.buggyTrace ?? null, patched: own?.patchedTrace ?? null};
  // every claim a trace can answer, looked for in one pass over that trace
  const asked: {base: Omit<ClaimCheck, 'verdict' | 'reason' | 'evidence'>; after: boolean; hunt: Hunt | null}[] = [];
  const byTrace = new Map<number, Hunt[]>();
  for (const m of reasoningOf(db, trajectory)) {
    if (m.family === 'obs') continue;
    const claim = claimOf(m);
    if (!claim) continue;
    const after = m.step > firstEdit;
    const traceId = (after ? own : buggyPair) ? (after ? traces.patched : traces.buggy) : null;
    const hunt: Hunt | null = traceId === null ? null : {claim, match: null, others: [], exhausted: false};
    if (hunt) byTrace.set(traceId!, [...(byTrace.get(traceId!) ?? []), hunt]);
    asked.push({base: {step: m.step, span: m.span, claim, text: claimText(claim)}, after, hunt});
  }
  const opened = new Map<number, StoredTrace>();
  for (const [traceId, hunts] of byTrace) {
    const after = traceId === traces.patched;
    opened.set(traceId, new StoredTrace(db, traceId));
    search(opened.get(traceId)!, hunts, {pair: (after ? own : buggyPair)!.id, side: after ? 'patched' : 'buggy'});
  }
  const checks: ClaimCheck[] = asked.map(({base, after, hunt}): ClaimCheck => {
    const claim = base.claim;
    if (!hunt)
      return {
        ...base,
        verdict: 'unverifiable',
        reason: after
          ? "the run's patch was never traced (deltalens trace --trajectory N)"
          : `no traced pair of ${instance} (its buggy program was never traced)`,
        evidence: null,
      };
    if (hunt.match)
      return {
        ...base,
        verdict: 'confirmed',
        reason: `recorded in ${hunt.match.function} (${hunt.match.file}${hunt.match.line ? `:${hunt.match.line}` : ''})`,
        evidence: hunt.match,
      };
    if (hunt.exhausted)
      return {
        ...base,
        verdict: 'unverifiable',
        reason: `the trace is longer than the ${SEARCH_BUDGET} steps a search reads`,
        evidence: null,
      };
    if (hunt.others.length)
      return {
        ...base,
        verdict: 'contradicted',
        reason: `${claim.kind === 'value' ? claim.name : claim.kind === 'return' ? `${claim.function}(…)` : 'the frame'} was recorded with ${hunt.others.map(o => o.recorded).join(', ')} only`,
        evidence: hunt.others[0]!,
        others: hunt.others,
      };
    const status = opened.get(after ? traces.patched! : traces.buggy!)!.status;
    return {
      ...base,
      verdict: 'unverifiable',
      reason:
        status !== 'complete'
          ? `the trace is ${status}`
          : 'the place is not in the trace, or its values were not recorded there',
      evidence: null,
    };
  });
  writeTx(db, () => {
    for (const c of checks)
      setClaim(db, trajectory, c.step, c.span[0], {
        ...c.claim,
        text: c.text,
        verdict: c.verdict,
        reason: c.reason,
        evidence: c.evidence,
        ...(c.others ? {others: c.others} : {}),
      });
  });
  const note = !pairs.length
    ? `no traced pair of ${instance}: every claim is unverifiable`
    : !own
      ? "the run's own patch was never traced: claims after its first edit are unverifiable"
      : null;
  return {checks, traces, note};
}
