/**
 * Code reasoning across a store (DeskCheck RQ1–RQ3): tagging every run's steps, and the report —
 * prevalence per agent, resolved rate with and without code reasoning and a chi-square test,
 * families and kinds, intent phases, difficulty by gold patch size, and reproduction runs
 * before the first edit.
 */
import {wrapLines} from '../core/text/sanitize.js';
import {
  DEFAULT_SETTINGS,
  detectReasoning,
  DETECTOR_VERSION,
  FAMILY_ORDER,
  TAXONOMY,
  type Family,
  type MarkFamily,
} from '../core/reasoning/detect.js';
import {chiSquare2x2, difficultyOf, patchSize} from '../core/reasoning/stats.js';
import {deskcheckRun, deskcheckTurn, type DeskcheckTurn} from '../core/reasoning/deskcheck.js';
import {DESKCHECK} from '../core/reasoning/deskcheck-patterns.js';
import {padMiddle} from '../core/text/sanitize.js';
import {writeTx, type Db} from '../store/db.js';
import {problemStatement} from '../store/instances.js';
import {
  clearReasoning,
  ensureReasoningRun,
  runsDecided,
  setRunDecision,
  staleTagRuns,
  goldPatchOf,
  instanceOfRun,
  reasoningRows,
  stepLabels,
  reasoningWriter,
  runsForReasoning,
  thoughtsOf,
  trajectoryIds,
} from '../store/reasoning.js';

export const DETECTORS = ['default', 'deskcheck'] as const;
export type Detector = (typeof DETECTORS)[number];

/** The text the deskcheck detector reads: the assistant's turn as it wrote it (the thought, and
 * a bash action in its fence, as mini-SWE-agent messages hold them). */
export function assistantText(step: {
  thought: string | null;
  action: string | null;
  tool: string | null;
}): string | null {
  if (step.thought === null && !step.action) return null;
  if (step.tool === 'bash' && step.action)
    return `THOUGHT: ${step.thought ?? ''}\n\n\`\`\`bash\n${step.action}\n\`\`\``;
  return step.thought;
}

/**
 * Where a stored mark's span points, said in the step's own terms: the default detector's spans
 * are offsets into the thought; deskcheck's into the assistant's turn (assistantText) — shifted
 * back onto the thought when they lie in it, else said to be on the turn's action part.
 */
export function markPlace(
  step: {thought: string | null; action: string | null; tool: string | null},
  mark: {detector: string; span: [number, number]},
): {on: 'thought' | 'action'; span: [number, number]} {
  if (mark.detector !== 'deskcheck' || !(step.tool === 'bash' && step.action)) return {on: 'thought', span: mark.span};
  const head = 'THOUGHT: '.length;
  const thought = (step.thought ?? '').length;
  if (mark.span[0] >= head && mark.span[1] <= head + thought)
    return {on: 'thought', span: [mark.span[0] - head, mark.span[1] - head]};
  const fence = head + thought + '\n\n```bash\n'.length;
  return {on: 'action', span: [Math.max(0, mark.span[0] - fence), Math.max(0, mark.span[1] - fence)]};
}

/** Re-tags every run (or the given ones) with a detector; one transaction per run. */
export function tagReasoning(
  db: Db,
  o: {detector?: Detector; trajectories?: number[]; onProgress?: (done: number, total: number) => void} = {},
): {runs: number; steps: number; marks: number; run: number} {
  const detector = o.detector ?? 'default';
  const ids = o.trajectories ?? trajectoryIds(db);
  const run =
    detector === 'deskcheck'
      ? ensureReasoningRun(db, 'deskcheck', 1, DESKCHECK.defaults)
      : ensureReasoningRun(db, detector, DETECTOR_VERSION, DEFAULT_SETTINGS);
  let steps = 0;
  let marks = 0;
  ids.forEach((id, i) => {
    const instance = instanceOfRun(db, id);
    const task = instance === null ? null : problemStatement(db, instance);
    writeTx(db, () => {
      clearReasoning(db, id, detector);
      const write = reasoningWriter(db, id, run, detector);
      const turns: (DeskcheckTurn | null)[] = [];
      for (const s of thoughtsOf(db, id)) {
        let found;
        if (detector === 'deskcheck') {
          const turn = deskcheckTurn(assistantText(s));
          turns.push(turn);
          found = turn?.marks ?? [];
        } else found = detectReasoning(s.thought, {task});
        write(s.idx, found);
        steps++;
        marks += found.length;
      }
      if (detector === 'deskcheck') {
        const decision = deskcheckRun(turns);
        setRunDecision(db, id, run, detector, decision.hasCodeReasoning, {
          reasoning_snippets: decision.reasoningSnippets,
          core_snippets: decision.coreSnippets,
        });
      }
    });
    o.onProgress?.(i + 1, ids.length);
  });
  return {runs: ids.length, steps, marks, run};
}

/** The report's phases, named as DeskCheck's RQ3 data names them, from our intent stages. */
const PHASE_OF_STAGE: Record<string, string> = {E: 'localization', I: 'patch', V: 'validation', O: 'general'};

interface AgentReasoning {
  agent: string;
  runs: number;
  with_reasoning: number;
  /** runs whose resolution is known, with and without code reasoning, and how many resolved */
  with_known: number;
  resolved_with: number;
  without_known: number;
  resolved_without: number;
  rate_with: number | null;
  rate_without: number | null;
  chi2: number | null;
  p: number | null;
  /** "too few runs": an expected count under 5 (or an empty row or column) — the test is not trusted */
  note: string | null;
  families: Record<Family, number>;
}

export interface ReasoningReport {
  detector: string;
  runs: number;
  steps_tagged: number;
  agents: AgentReasoning[];
  families: Record<
    MarkFamily,
    {
      name: string;
      deskcheck: string | null;
      runs: number;
      steps: number;
      marks: number;
      kinds: Record<string, {runs: number; marks: number}>;
    }
  >;
  phases: Record<
    string,
    {
      stage: string;
      node_occurrences: number;
      node_occurrences_with_code_reasoning: number;
      family_occurrences: Record<Family, number>;
    }
  >;
  difficulty: {
    known: number;
    note: string;
    buckets: Record<string, {runs: number; with_reasoning: number; resolved_with: number; resolved_without: number}>;
  };
  reproduction_before_first_edit: {
    runs: number;
    with_any: number;
    mean: number | null;
    median: number | null;
    counts: Record<string, number>;
    per_run: Record<string, number>;
  };
  notes: string[];
}

const emptyFamilies = (): Record<Family, number> => ({A: 0, B: 0, C: 0, D: 0, E: 0});

export function reasoningReport(db: Db, detector: Detector = 'default'): ReasoningReport {
  const runs = runsForReasoning(db);
  const rows = reasoningRows(db, detector);
  const notes: string[] = [];
  // per run: families with reasoning, and per step the families
  const byRun = new Map<number, {families: Set<Family>; steps: Map<number, Set<MarkFamily>>}>();
  for (const r of rows) {
    let e = byRun.get(r.trajectory);
    if (!e) byRun.set(r.trajectory, (e = {families: new Set(), steps: new Map()}));
    if (r.family !== 'obs') e.families.add(r.family);
    let s = e.steps.get(r.step);
    if (!s) e.steps.set(r.step, (s = new Set()));
    s.add(r.family);
  }
  // the deskcheck detector decides per run (two reasoning windows, one beyond observations)
  const decided = detector === 'deskcheck' ? runsDecided(db, 'deskcheck') : null;
  const reasons = (id: number) => (decided ? decided.has(id) : (byRun.get(id)?.families.size ?? 0) > 0);

  // per agent: prevalence, resolution with / without, chi-square
  const agents = [...new Set(runs.map(r => r.agent))].sort().map((agent): AgentReasoning => {
    const mine = runs.filter(r => r.agent === agent);
    const withR = mine.filter(r => reasons(r.trajectory));
    const withoutR = mine.filter(r => !reasons(r.trajectory));
    const known = (xs: typeof mine) => xs.filter(r => r.resolved !== null);
    const resolved = (xs: typeof mine) => xs.filter(r => r.resolved === 1).length;
    const [wk, wok] = [known(withR), known(withoutR)];
    const [a, c] = [resolved(wk), resolved(wok)];
    const test = chiSquare2x2(a, wk.length - a, c, wok.length - c);
    const families = emptyFamilies();
    for (const r of mine) for (const f of byRun.get(r.trajectory)?.families ?? []) families[f]++;
    return {
      agent,
      runs: mine.length,
      with_reasoning: withR.length,
      with_known: wk.length,
      resolved_with: a,
      without_known: wok.length,
      resolved_without: c,
      rate_with: wk.length ? a / wk.length : null,
      rate_without: wok.length ? c / wok.length : null,
      chi2: test.chi2,
      p: test.p,
      note:
        !wk.length && !wok.length
          ? 'no run with a known resolution'
          : test.tooFew
            ? 'too few runs (an expected count under 5): no test'
            : null,
      families,
    };
  });

  // families and kinds
  const families = Object.fromEntries(
    (Object.keys(TAXONOMY) as MarkFamily[]).map(f => [
      f,
      {
        name: TAXONOMY[f].name,
        deskcheck: TAXONOMY[f].deskcheck,
        runs: 0,
        steps: 0,
        marks: 0,
        kinds: Object.fromEntries(Object.keys(TAXONOMY[f].kinds).map(k => [k, {runs: 0, marks: 0}])),
      },
    ]),
  ) as ReasoningReport['families'];
  const runKinds = new Set<string>();
  const stepFamilies = new Set<string>();
  const runFamilies = new Set<string>();
  for (const r of rows) {
    const fam = families[r.family];
    fam.marks++;
    const kind = (fam.kinds[r.kind] ??= {runs: 0, marks: 0});
    kind.marks++;
    if (!runKinds.has(`${r.trajectory}/${r.family}/${r.kind}`)) {
      runKinds.add(`${r.trajectory}/${r.family}/${r.kind}`);
      kind.runs++;
    }
    if (!stepFamilies.has(`${r.trajectory}/${r.step}/${r.family}`)) {
      stepFamilies.add(`${r.trajectory}/${r.step}/${r.family}`);
      fam.steps++;
    }
    if (!runFamilies.has(`${r.trajectory}/${r.family}`)) {
      runFamilies.add(`${r.trajectory}/${r.family}`);
      fam.runs++;
    }
  }

  // phases (steps per intent stage), reproduction runs before the first edit
  const phases: ReasoningReport['phases'] = Object.fromEntries(
    Object.entries(PHASE_OF_STAGE).map(([stage, name]) => [
      name,
      {stage, node_occurrences: 0, node_occurrences_with_code_reasoning: 0, family_occurrences: emptyFamilies()},
    ]),
  );
  const reproCounts: number[] = [];
  const perRun: Record<string, number> = {};
  let stepsTotal = 0;
  for (const r of runs) {
    // one read of the run's steps: their stages for the phases, their rules for the reproductions
    const labelled = stepLabels(db, r.trajectory);
    stepsTotal += labelled.length;
    const tagged = byRun.get(r.trajectory)?.steps;
    labelled.forEach(({stage, idx}) => {
      const phase = phases[PHASE_OF_STAGE[stage] ?? ''];
      if (!phase) return;
      phase.node_occurrences++;
      const fams = [...(tagged?.get(idx) ?? [])].filter((f): f is Family => f !== 'obs');
      if (fams.length) phase.node_occurrences_with_code_reasoning++;
      for (const f of fams) phase.family_occurrences[f]++;
    });
    // the paper's Figure 15: how often a run executes a reproduction before its first source edit
    const firstEdit = labelled.find(s => s.rule === 'source-edit')?.idx ?? Infinity;
    const n = labelled.filter(s => s.rule === 'run' && s.idx < firstEdit).length;
    reproCounts.push(n);
    perRun[String(r.trajectory)] = n;
  }
  const sorted = [...reproCounts].sort((x, y) => x - y);
  const counts: Record<string, number> = {};
  for (const n of reproCounts) counts[n >= 5 ? '5+' : String(n)] = (counts[n >= 5 ? '5+' : String(n)] ?? 0) + 1;

  // difficulty: the gold patch's size, where the instance record gives it
  const buckets: ReasoningReport['difficulty']['buckets'] = {};
  let known = 0;
  for (const r of runs) {
    const patch = goldPatchOf(db, r.instance);
    if (!patch) continue;
    known++;
    const size = patchSize(patch);
    const b = (buckets[difficultyOf(size)] ??= {runs: 0, with_reasoning: 0, resolved_with: 0, resolved_without: 0});
    b.runs++;
    if (reasons(r.trajectory)) {
      b.with_reasoning++;
      if (r.resolved === 1) b.resolved_with++;
    } else if (r.resolved === 1) b.resolved_without++;
  }
  if (!rows.length && runs.length) notes.push(`no ${detector} tags yet: deltalens reasoning tag`);
  const stale = staleTagRuns(db, detector, detector === 'deskcheck' ? 1 : DETECTOR_VERSION);
  if (stale)
    notes.push(
      `${stale} run(s) were tagged by an older version of the ${detector} detector: deltalens reasoning tag re-tags them`,
    );
  if (known < runs.length)
    notes.push(
      `difficulty: ${runs.length - known} of ${runs.length} runs have no gold patch in their instance record (import the SWE-bench records)`,
    );
  return {
    detector,
    runs: runs.length,
    steps_tagged: stepsTotal,
    agents,
    families,
    phases,
    difficulty: {
      known,
      note: 'by the gold patch: small = one file and at most 5 changed lines, medium = at most 2 files and 20 lines, large = more',
      buckets,
    },
    reproduction_before_first_edit: {
      runs: reproCounts.length,
      with_any: reproCounts.filter(n => n > 0).length,
      mean: reproCounts.length ? reproCounts.reduce((s, n) => s + n, 0) / reproCounts.length : null,
      median: sorted.length
        ? sorted.length % 2
          ? sorted[(sorted.length - 1) / 2]!
          : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2
        : null,
      counts,
      per_run: perRun,
    },
    notes,
  };
}

const pct = (x: number | null) => (x === null ? '   —' : `${(x * 100).toFixed(0).padStart(3)}%`);

/** The report as text lines (headings marked), the same for the command and the explorer. */
/** `width`: the agent column narrows so a row fits (36 characters at most). */
export function reasoningReportLines(r: ReasoningReport, width = 120): {text: string; role?: 'heading' | 'muted'}[] {
  const aw = Math.max(14, Math.min(36, width - 63));
  const lines: {text: string; role?: 'heading' | 'muted'}[] = [];
  const out = (text: string) =>
    lines.push({text, ...(/^(agent|family|phase) /.test(text) ? {role: 'heading' as const} : {})});
  const detector = r.detector;
  out(`Code reasoning (${detector} detector): ${r.runs} runs, ${r.steps_tagged} steps`);
  out('');
  out(`${'agent'.padEnd(aw)} runs  with  resolved with · without   chi2       p`);
  // a row whose test is not trusted shows no chi2 or p, only a mark explained under the table
  const marks = new Map<string, string>();
  for (const a of r.agents) {
    const rates = `${pct(a.rate_with)} (${a.resolved_with}/${a.with_known}) · ${pct(a.rate_without)} (${a.resolved_without}/${a.without_known})`;
    const mark = a.note ? (marks.get(a.note) ?? marks.set(a.note, '†‡§¶'[marks.size] ?? '*').get(a.note)!) : '';
    const stats = a.note
      ? `${'—'.padStart(5)} ${'—'.padStart(7)} ${mark}`
      : `${a.chi2 === null ? '    —' : a.chi2.toFixed(2).padStart(5)} ${a.p === null ? '      —' : a.p.toFixed(4).padStart(7)}`;
    out(
      `${padMiddle(a.agent, aw)} ${String(a.runs).padStart(4)} ${pct(a.runs ? a.with_reasoning / a.runs : null)}  ${rates.padEnd(28)} ${stats}`,
    );
  }
  for (const [note, mark] of marks)
    for (const l of wrapLines(`${mark} ${note}`, width)) lines.push({text: l, role: 'muted'});
  out('');
  out(`${'family / kind'.padEnd(44)} runs  steps  marks`);
  for (const f of [...FAMILY_ORDER, 'obs' as const]) {
    const x = r.families[f];
    out(
      `${`${f} ${x.name}`.padEnd(44)} ${String(x.runs).padStart(4)} ${String(x.steps).padStart(6)} ${String(x.marks).padStart(6)}`,
    );
    for (const [k, v] of Object.entries(x.kinds))
      if (v.marks) out(`    ${k.padEnd(40)} ${String(v.runs).padStart(4)}        ${String(v.marks).padStart(6)}`);
  }
  out('');
  out(`${'phase (intent stage)'.padEnd(26)} steps  with reasoning  ${FAMILY_ORDER.join('    ')}`);
  for (const [name, ph] of Object.entries(r.phases)) {
    out(
      `${`${name} (${ph.stage})`.padEnd(26)} ${String(ph.node_occurrences).padStart(5)}  ${String(ph.node_occurrences_with_code_reasoning).padStart(14)}  ${FAMILY_ORDER.map(f => String(ph.family_occurrences[f]).padStart(4)).join(' ')}`,
    );
  }
  out('');
  const rep = r.reproduction_before_first_edit;
  // sentences wrap: at 80 columns nothing of them is cut
  const say = (text: string, role?: 'muted') => {
    for (const l of wrapLines(text, width)) lines.push({text: l, ...(role ? {role} : {})});
  };
  say(
    `reproduction runs before the first source edit: ${rep.with_any} of ${rep.runs} runs ran one; mean ${rep.mean === null ? '—' : rep.mean.toFixed(2)}, median ${rep.median ?? '—'} (${Object.entries(
      rep.counts,
    )
      .sort()
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ')})`,
  );
  const buckets = Object.entries(r.difficulty.buckets);
  if (buckets.length)
    say(
      `by gold patch size (${r.difficulty.known} runs): ${buckets.map(([k, b]) => `${k} ${b.with_reasoning}/${b.runs} with reasoning`).join(', ')}`,
    );
  for (const n of r.notes) say(`note: ${n}`, 'muted');
  return lines;
}
