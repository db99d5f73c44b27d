/**
 * Localization against the gold patch (DeskCheck Table 3): per run whose instance has a gold
 * patch, the files and functions its patch edits against the gold patch's — function level where
 * a checkout of the instance is at hand (`deltatrace scopes`, Python's ast; no project code runs),
 * file level otherwise, and said so.
 */
import type {Scope} from '../core/lens/scope.js';
import {diffTouches, functionsTouched, prf, type Prf} from '../core/reasoning/localization.js';
import type {Db} from '../store/db.js';
import {goldPatchOf, reasoningRows, runPatches} from '../store/reasoning.js';
import {scopesIn} from './scopes.js';

interface RunLocalization {
  trajectory: number;
  agent: string;
  instance: string;
  resolved: boolean | null;
  reasoning: boolean;
  file: Prf;
  /** null: no checkout of the instance (file level only) */
  function: Prf | null;
  note: string | null;
}

interface AgentLocalization {
  agent: string;
  runs: number;
  file_f1: number | null;
  function_f1: number | null;
  function_runs: number;
  with_reasoning: {runs: number; file_f1: number | null; function_f1: number | null};
  without_reasoning: {runs: number; file_f1: number | null; function_f1: number | null};
}

const mean = (xs: (number | null)[]) => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? v.reduce((s, x) => s + x, 0) / v.length : null;
};

export async function localizationReport(
  db: Db,
  sources: Map<string, string>,
  python = process.env.DELTALENS_PYTHON ?? 'python3',
): Promise<{runs: RunLocalization[]; agents: AgentLocalization[]; notes: string[]}> {
  const notes: string[] = [];
  const reasons = new Set(
    reasoningRows(db)
      .filter(r => r.family !== 'obs')
      .map(r => r.trajectory),
  );
  const runs = runPatches(db);
  const byInstance = new Map<string, typeof runs>();
  for (const r of runs) byInstance.set(r.instance, [...(byInstance.get(r.instance) ?? []), r]);
  const out: RunLocalization[] = [];
  let noGold = 0;
  for (const [instance, own] of byInstance) {
    const gold = goldPatchOf(db, instance);
    if (!gold) {
      noGold += own.length;
      continue;
    }
    const goldTouches = diffTouches(gold);
    const dir = sources.get(instance);
    let scopes: Map<string, Scope[]> | null = null;
    if (dir) {
      const files = [...new Set([...goldTouches.keys(), ...own.flatMap(r => [...diffTouches(r.patch).keys()])])];
      const found = await scopesIn(dir, files, python);
      if (found.problem) notes.push(`${instance}: ${found.problem} (file level only)`);
      else scopes = found.scopes;
    }
    for (const r of own) {
      const touches = diffTouches(r.patch);
      const file = prf(new Set(touches.keys()), new Set(goldTouches.keys()));
      let fn: Prf | null = null;
      let note: string | null = scopes ? null : 'file level only: no checkout of the instance (--source INSTANCE=DIR)';
      if (scopes) {
        const a = functionsTouched(touches, scopes);
        const g = functionsTouched(goldTouches, scopes);
        // a file with no scopes (not Python, new, or not parsed) counts as one unit
        for (const f of a.unknownFiles) a.functions.add(`${f}::<file>`);
        for (const f of g.unknownFiles) g.functions.add(`${f}::<file>`);
        fn = prf(a.functions, g.functions);
        const unknown = [...new Set([...a.unknownFiles, ...g.unknownFiles])];
        if (unknown.length) note = `without function scopes (counted whole): ${unknown.join(', ')}`;
      }
      out.push({
        trajectory: r.trajectory,
        agent: r.agent,
        instance,
        resolved: r.resolved === null ? null : r.resolved === 1,
        reasoning: reasons.has(r.trajectory),
        file,
        function: fn,
        note,
      });
    }
  }
  if (noGold)
    notes.push(
      `${noGold} run(s) with a patch have no gold patch in their instance record (import the SWE-bench records)`,
    );
  const summary = (xs: RunLocalization[]) => ({
    runs: xs.length,
    file_f1: mean(xs.map(x => x.file.f1)),
    function_f1: mean(xs.map(x => x.function?.f1 ?? null)),
  });
  const agents = [...new Set(out.map(r => r.agent))].sort().map(agent => {
    const mine = out.filter(r => r.agent === agent);
    return {
      agent,
      ...summary(mine),
      function_runs: mine.filter(r => r.function).length,
      with_reasoning: summary(mine.filter(r => r.reasoning)),
      without_reasoning: summary(mine.filter(r => !r.reasoning)),
    };
  });
  return {runs: out, agents, notes};
}
