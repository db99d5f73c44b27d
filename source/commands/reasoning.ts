import {DETECTORS, reasoningReport, reasoningReportLines, tagReasoning, type Detector} from '../services/reasoning.js';
import {reasoningRuns} from '../store/reasoning.js';
import {COMMON_OPTIONS, EXIT, oneOf, parse, printJson, UsageError} from './args.js';
import {openStore} from './db-path.js';
import {say} from './output.js';

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
    for (const line of reasoningReportLines(r)) say(line.text);
    return EXIT.ok;
  } finally {
    db.close();
  }
}
