import {FAMILY_ORDER} from '../core/reasoning/detect.js';
import {DETECTORS, reasoningReport, tagReasoning, type Detector} from '../services/reasoning.js';
import {reasoningRuns} from '../store/reasoning.js';
import {COMMON_OPTIONS, EXIT, oneOf, parse, printJson, UsageError} from './args.js';
import {openStore} from './db-path.js';
import {cell, say, warn} from './output.js';

export const REASONING_HELP = `Usage: deltalens reasoning tag [--detector default] [--json] [--db FILE]
       deltalens reasoning report [--detector default] [--json] [--db FILE]

Code reasoning in the agents' own words (DeskCheck §2): every step's thought is read for the
five families of simulated execution — A variable state, B call dependency, C loop,
D conditional, E return value / exception — each match kept with its span and kind. Reports of
what a run showed ("all tests pass", "reproduced the issue", a value stated from a run's
output) are observations (obs), kept apart and never counted as reasoning. Code fences, pasted
numbered listings and the task statement's lines are left out first. Import tags every run;
tag re-tags the whole database (after a detector changes). The thresholds are stored with each
tagging run.

report: per agent, runs with code reasoning, the resolved rate with and without it and
Pearson's chi-square test of independence (df 1; "too few runs" when an expected count is under
5); marks per family and kind; steps per intent phase (E → localization, I → patch,
V → validation, O → general, as DeskCheck's RQ3 data names them) with the families in them;
runs by the size of the instance's gold patch; reproduction runs before the first source edit.
--json: {"detector", "runs", "agents": [{"agent", "runs", "with_reasoning", "resolved_with",
"resolved_without", "with_known", "without_known", "rate_with", "rate_without", "chi2", "p",
"note", "families"}], "families": {A…E, obs: {"name", "deskcheck", "runs", "steps", "marks",
"kinds"}}, "phases": {localization|patch|validation|general: {"node_occurrences",
"node_occurrences_with_code_reasoning", "family_occurrences"}}, "difficulty",
"reproduction_before_first_edit", "notes"}.`;

const pct = (x: number | null) => (x === null ? '   —' : `${(x * 100).toFixed(0).padStart(3)}%`);

export async function runReasoning(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const {values, positionals} = parse(rest, {...COMMON_OPTIONS, detector: {type: 'string'}});
  if (values.help || sub === '--help' || sub === '-h' || sub === undefined) {
    say(REASONING_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  if (positionals.length) throw new UsageError(`reasoning ${sub} takes no arguments (got "${positionals[0]}")`);
  const detector = (oneOf(values.detector, DETECTORS, '--detector') ?? 'default') as Detector;
  if (sub === 'tag') {
    const {db, path} = await openStore(values.db, 'write');
    try {
      const tty = process.stderr.isTTY && !values.json;
      const t0 = Date.now();
      const r = tagReasoning(db, {detector, onProgress: (done, total) => tty && (done % 50 === 0 || done === total) && process.stderr.write(`\r\x1b[Ktagging: ${done}/${total} runs`)});
      if (tty) process.stderr.write('\n');
      const seconds = (Date.now() - t0) / 1000;
      if (values.json) printJson({tagged: {...r, detector, seconds, steps_per_second: seconds ? Math.round(r.steps / seconds) : null}, db: path});
      else say(`tagged ${r.steps} steps of ${r.runs} runs with the ${detector} detector: ${r.marks} marks (${seconds.toFixed(1)} s) → ${path}`);
      return EXIT.ok;
    } finally {
      db.close();
    }
  }
  if (sub !== 'report') throw new UsageError(`reasoning takes tag or report (got "${sub}")`);
  const {db} = await openStore(values.db, 'read');
  try {
    const r = reasoningReport(db, detector);
    if (values.json) {
      printJson({...r, tagging_runs: reasoningRuns(db)});
      return EXIT.ok;
    }
    say(`Code reasoning (${detector} detector): ${r.runs} runs, ${r.steps_tagged} steps`);
    say('');
    say(`${'agent'.padEnd(36)} runs  with  resolved with · without   chi2       p`);
    for (const a of r.agents) {
      const rates = `${pct(a.rate_with)} (${a.resolved_with}/${a.with_known}) · ${pct(a.rate_without)} (${a.resolved_without}/${a.without_known})`;
      say(`${cell(a.agent).slice(0, 36).padEnd(36)} ${String(a.runs).padStart(4)} ${pct(a.runs ? a.with_reasoning / a.runs : null)}  ${rates.padEnd(28)} ${a.chi2 === null ? '    —' : a.chi2.toFixed(2).padStart(5)} ${a.p === null ? '      —' : a.p.toFixed(4).padStart(7)}${a.note ? `  ${a.note}` : ''}`);
    }
    say('');
    say(`${'family / kind'.padEnd(44)} runs  steps  marks`);
    for (const f of [...FAMILY_ORDER, 'obs' as const]) {
      const x = r.families[f];
      say(`${`${f} ${x.name}`.padEnd(44)} ${String(x.runs).padStart(4)} ${String(x.steps).padStart(6)} ${String(x.marks).padStart(6)}`);
      for (const [k, v] of Object.entries(x.kinds)) if (v.marks) say(`    ${k.padEnd(40)} ${String(v.runs).padStart(4)}        ${String(v.marks).padStart(6)}`);
    }
    say('');
    say(`${'phase (intent stage)'.padEnd(26)} steps  with reasoning  ${FAMILY_ORDER.join('    ')}`);
    for (const [name, ph] of Object.entries(r.phases)) {
      say(`${`${name} (${ph.stage})`.padEnd(26)} ${String(ph.node_occurrences).padStart(5)}  ${String(ph.node_occurrences_with_code_reasoning).padStart(14)}  ${FAMILY_ORDER.map(f => String(ph.family_occurrences[f]).padStart(4)).join(' ')}`);
    }
    say('');
    const rep = r.reproduction_before_first_edit;
    say(`reproduction runs before the first source edit: ${rep.with_any} of ${rep.runs} runs ran one; mean ${rep.mean === null ? '—' : rep.mean.toFixed(2)}, median ${rep.median ?? '—'} (${Object.entries(rep.counts).sort().map(([k, v]) => `${k}: ${v}`).join(', ')})`);
    const buckets = Object.entries(r.difficulty.buckets);
    if (buckets.length) say(`by gold patch size (${r.difficulty.known} runs): ${buckets.map(([k, b]) => `${k} ${b.with_reasoning}/${b.runs} with reasoning`).join(', ')}`);
    for (const n of r.notes) warn(`note: ${n}`);
    return EXIT.ok;
  } finally {
    db.close();
  }
}
