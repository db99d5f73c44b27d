/**
 * Where a local question is asked (ExplainBench §5.3): the candidate expressions evaluated by the
 * tracer on both versions at the delta point, then after the line, after its next executions,
 * and (an outcome delta) at the end of the call — the first point where some candidates change
 * and others keep their value. Where the names in scope tell nothing apart, the parts of the
 * delta's line are candidates too.
 */
import {join} from 'node:path';
import {changed, notReturnedYet, type EvalResult} from '../../core/questions/candidates.js';
import type {LocalProvenance} from '../../core/questions/provenance.js';
import type {latestDelta} from '../../store/traces.js';
import type {PythonRunner} from '../python.js';
import type {DeltaPoint} from '../stepper.js';
import type {HypothesisPlan} from '../tracing.js';
import type {BuildOptions} from './options.js';
import {evaluateAt, type Step} from './runs.js';

/** A candidate expression: its text as the question shows it, and what is evaluated when that differs. */
export interface Candidate {
  text: string;
  how: string;
  /** evaluated instead of the text (the call's value: __return__) */
  expr?: string;
  /** a part of the delta's line: a name one side lacks there is out of scope, not a change */
  scoped?: boolean;
}

type Evaluated = Candidate & {buggy: EvalResult; patched: EvalResult; changed: boolean; usable: boolean};
type Attempt = LocalProvenance['attempts'][number];
type EvalTiming = 'before' | 'after' | 'return';
type EvalPoint = Omit<DeltaPoint, 'timing'> & {timing: EvalTiming};
type Delta = NonNullable<ReturnType<typeof latestDelta>>;

interface PointSearch {
  runner: PythonRunner;
  o: BuildOptions;
  hypothesis: HypothesisPlan | undefined;
  step: Step;
  progress: (detail: string) => void;
}

/** The point and the candidates as evaluated there (null: none found), and every point tried. */
export async function findQuestionPoint(
  ctx: PointSearch,
  trees: {buggy: string; patched: string},
  pb: DeltaPoint,
  pp: DeltaPoint,
  d: Delta,
  candidates: Candidate[],
): Promise<{found: {evaluated: Evaluated[]; at: {b: EvalPoint; p: EvalPoint}} | null; attempts: Attempt[]}> {
  const attempts: Attempt[] = [];
  // The delta's own point first; where nothing differs there yet (a line the patch rewrote:
  // before it runs, both sides are alike), after the line, then after its next executions —
  // the first point at which a candidate differs is the question's.
  const search = async (
    pool: Candidate[],
  ): Promise<{evaluated: Evaluated[]; at: {b: EvalPoint; p: EvalPoint}} | null> => {
    const exprs = [...new Set(pool.map(x => x.expr ?? x.text))];
    // where the frames return differently (an outcome delta) and nothing near the line tells
    // the sides apart, the end of the call — the point ExplainBench asks at ("the return
    // statement", after): what it returns or raises, and the locals it ends with
    const tries: {timing: EvalTiming; extra: number}[] = [
      {timing: pb.timing, extra: 0},
      ...[0, 1, 2, 3].map(extra => ({timing: 'after' as const, extra})),
      ...(d.kind === 'outcome' ? [{timing: 'return' as const, extra: 0}] : []),
    ].filter((t, i, all) => all.findIndex(x => x.timing === t.timing && x.extra === t.extra) === i);
    let unreached = false;
    for (const t of tries) {
      // a line not reached N times is not reached N+1 times either
      if (unreached && t.timing !== 'return') continue;
      const at = {
        b: {...pb, timing: t.timing, hit: pb.hit + t.extra},
        p: {...pp, timing: t.timing, hit: pp.hit + t.extra},
      };
      ctx.progress(
        `evaluating ${exprs.length} candidate expressions ${t.timing === 'return' ? 'at the return of the call that runs' : t.timing} ${d.file}:${pb.line} (execution ${at.b.hit}) on both versions`,
      );
      const how = {...ctx.o, hypothesis: ctx.hypothesis};
      const [eb, ep] = await Promise.all([
        evaluateAt(ctx.runner, how, trees.buggy, at.b, exprs),
        evaluateAt(ctx.runner, how, trees.patched, at.p, exprs),
      ]);
      if (!eb.reached || !ep.reached) {
        attempts.push({
          timing: t.timing,
          hit: {buggy: at.b.hit, patched: at.p.hit},
          changed: 0,
          candidates: pool.length,
          note: `not reached (${!eb.reached ? `buggy: ${eb.note}` : `patched: ${ep.note}`})`,
        });
        unreached = true;
        continue;
      }
      const evaluated = pool.map(x => {
        const b = eb.results.get(x.expr ?? x.text) ?? {error: {type: 'NoResult'}};
        const p = ep.results.get(x.expr ?? x.text) ?? {error: {type: 'NoResult'}};
        // the same exception on both sides: not evaluable here, neither changed nor a distractor;
        // a part of a line that names what one side does not have there: not evaluable either
        // the value returned (__return__) is there only at the end of the call: elsewhere not evaluable
        const outOfScope = [b, p].some(
          r =>
            r.error &&
            (x.scoped === true
              ? /(^|\.)(NameError|UnboundLocalError)$/.test(r.error.type)
              : x.expr === '__return__' && notReturnedYet(r.error)),
        );
        const differs = !outOfScope && changed(b, p);
        const usable = differs || (!outOfScope && !b.error && !p.error);
        return {...x, buggy: b, patched: p, changed: differs, usable};
      });
      const n = evaluated.filter(x => x.changed).length;
      const same = evaluated.filter(x => x.usable && !x.changed).length;
      attempts.push({
        timing: t.timing,
        hit: {buggy: at.b.hit, patched: at.p.hit},
        changed: n,
        candidates: pool.length,
      });
      if (n > 0 && same > 0) return {evaluated, at};
    }
    return null;
  };
  let found = candidates.length ? await search(candidates) : null;
  if (!found) {
    // the names in scope do not tell the sides apart there (a fix that returns or raises early
    // changes no name): the parts of the delta's line on each side — calls, comparisons,
    // attribute reads, arithmetic, subscripts, lengths; a name one side lacks there is out of
    // scope, not a change
    const parts: Candidate[] = [];
    for (const [tree, p] of [
      [trees.buggy, pb],
      [trees.patched, pp],
    ] as const) {
      const sub = await ctx.step.parseOnly<{candidates: {text: string; how: string}[]}>(
        ['subexprs', '--file', join(tree, p.file), '--line', String(p.line)],
        tree,
      );
      if ('error' in sub) continue;
      for (const c of sub.candidates)
        if (![...candidates, ...parts].some(x => (x.expr ?? x.text) === c.text)) parts.push({...c, scoped: true});
    }
    if (parts.length) found = await search([...candidates, ...parts]);
  }
  return {found, attempts};
}
