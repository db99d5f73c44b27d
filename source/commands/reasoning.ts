import {DETECTORS, reasoningReport, reasoningReportLines, tagReasoning, type Detector} from '../services/reasoning.js';
import {instanceOfRun, reasoningRuns, trajectoryIds} from '../store/reasoning.js';
import {existsSync} from 'node:fs';
import {resolve} from 'node:path';
import {demoCheckouts} from '../services/demo.js';
import {localizationReport} from '../services/localization.js';
import {checkClaims} from '../services/claims.js';
import {COMMON_OPTIONS, EXIT, NotFound, oneOf, parse, printJson, UsageError} from './args.js';
import {openStore} from './db-path.js';
import {say} from './output.js';

export const REASONING_HELP = `Usage: deltalens reasoning tag [--detector default|deskcheck] [--json] [--db FILE]
       deltalens reasoning report [--detector default|deskcheck] [--json] [--db FILE]
       deltalens reasoning localization [--source INSTANCE=DIR]... [--json] [--db FILE]
       deltalens reasoning check (--trajectory N | --all) [--json] [--db FILE]

Code reasoning in the agents' own words (DeskCheck §2): every step's thought is read for the
five families of simulated execution — A variable state, B call dependency, C loop,
D conditional, E return value / exception — each match kept with its span and kind. Reports of
what a run showed ("all tests pass", "reproduced the issue", a value stated from a run's
output) are observations (obs), kept apart and never counted as reasoning. Code fences, pasted
numbered listings and the task statement's lines are left out first. Import tags every run;
tag re-tags the whole database (after a detector changes). The thresholds are stored with each
tagging run. --detector deskcheck is the DeskCheck artifact's own scan, deciding as it does
(code tokens in prose, then pattern families on their windows; a run reasons when two windows
carry family kinds, one beyond an observation); import tags with the default detector only.

report: per agent, runs with code reasoning, the resolved rate with and without it and
Pearson's chi-square test of independence (df 1; "too few runs" when an expected count is under
5); marks per family and kind; steps per intent phase (E → localization, I → patch,
V → validation, O → general, as DeskCheck's RQ3 data names them) with the families in them;
runs by the size of the instance's gold patch; reproduction runs before the first source edit.

check: the claims in a run's code reasoning against its program's trace (beyond the paper). A
mark that states a concrete value — a variable's value (A), a call's result or an exception (E)
— is a claim; reasoning before the run's first source edit is checked against the buggy program
(any traced pair of the instance), after it against the run's own patch (a pair traced with
trace --trajectory N, or one whose diff is the run's patch). confirmed: the trace records that
value there; contradicted: the place is recorded with other values only; unverifiable: no
trace, the place not reached, or its values not recorded — never a guess. The verdict and its
evidence (pair, trace, frame, step, recorded value) are stored with the mark (show trajectory
--json, the step screen). --json: {"checks": [{"trajectory", "step", "claim", "text",
"verdict", "reason", "evidence"}], "counts": {confirmed, contradicted, unverifiable}}.

localization (DeskCheck Table 3): for every run with a patch whose instance record has a gold
patch, precision, recall and F1 of the files — and, with a checkout of the instance
(--source INSTANCE=DIR; the demo projects' own are used without asking), of the functions — its
patch edits against those the gold patch edits (functions from Python's ast on the checkout, the
task's starting tree; lines outside any function count as the file's <module>), per run and per
agent, split by runs with and without code reasoning. --json: {"runs": [{"trajectory", "agent",
"instance", "resolved", "reasoning", "file": {"precision", "recall", "f1", "agent", "gold",
"both"}, "function": {…} | null, "note"}], "agents": [{"agent", "runs", "file_f1",
"function_f1", "with_reasoning", "without_reasoning"}], "notes"}.
--json: {"detector", "runs", "agents": [{"agent", "runs", "with_reasoning", "resolved_with",
"resolved_without", "with_known", "without_known", "rate_with", "rate_without", "chi2", "p",
"note", "families"}], "families": {A…E, obs: {"name", "deskcheck", "runs", "steps", "marks",
"kinds"}}, "phases": {localization|patch|validation|general: {"node_occurrences",
"node_occurrences_with_code_reasoning", "family_occurrences"}}, "difficulty",
"reproduction_before_first_edit" (its per_run: run id → reproduction runs before the first
source edit), "notes"}.`;

export async function runReasoning(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const {values, positionals} = parse(rest, {
    ...COMMON_OPTIONS,
    detector: {type: 'string'},
    source: {type: 'string', multiple: true},
    trajectory: {type: 'string'},
    all: {type: 'boolean'},
  });
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
      const r = tagReasoning(db, {
        detector,
        onProgress: (done, total) =>
          tty && (done % 50 === 0 || done === total) && process.stderr.write(`\r\x1b[Ktagging: ${done}/${total} runs`),
      });
      if (tty) process.stderr.write('\n');
      const seconds = (Date.now() - t0) / 1000;
      if (values.json)
        printJson({
          tagged: {...r, detector, seconds, steps_per_second: seconds ? Math.round(r.steps / seconds) : null},
          db: path,
        });
      else
        say(
          `tagged ${r.steps} steps of ${r.runs} runs with the ${detector} detector: ${r.marks} marks (${seconds.toFixed(1)} s) → ${path}`,
        );
      return EXIT.ok;
    } finally {
      db.close();
    }
  }
  if (sub === 'check') {
    if (!values.trajectory === !values.all) throw new UsageError('reasoning check takes --trajectory N or --all');
    if (values.trajectory !== undefined && !/^\d+$/.test(values.trajectory))
      throw new UsageError(`--trajectory takes a run id (got "${values.trajectory}")`);
    const {db} = await openStore(values.db, 'write');
    try {
      const ids = values.all ? trajectoryIds(db) : [Number(values.trajectory)];
      if (!values.all && instanceOfRun(db, ids[0]!) === null) throw new NotFound(`no trajectory with id ${ids[0]}`);
      const all = ids.flatMap(id => {
        const r = checkClaims(db, id);
        return r.checks.map(c => ({trajectory: id, ...c}));
      });
      const counts = {confirmed: 0, contradicted: 0, unverifiable: 0};
      for (const c of all) counts[c.verdict]++;
      if (values.json) printJson({checks: all, counts});
      else {
        for (const c of all)
          say(`#${c.trajectory} step ${c.step + 1}  ${c.verdict.padEnd(12)} ${c.text}  — ${c.reason}`);
        say(
          `${all.length} claims: ${counts.confirmed} confirmed, ${counts.contradicted} contradicted, ${counts.unverifiable} unverifiable`,
        );
      }
      return EXIT.ok;
    } finally {
      db.close();
    }
  }
  if (sub === 'localization') {
    const sources = new Map(demoCheckouts().map(p => [p.instance, p.dir] as const));
    for (const spec of values.source ?? []) {
      const m = /^([^=]+)=(.+)$/.exec(spec);
      if (!m) throw new UsageError(`--source takes INSTANCE=DIR (got "${spec}")`);
      if (!existsSync(m[2]!)) throw new UsageError(`--source ${m[1]}: no directory ${m[2]}`);
      sources.set(m[1]!, resolve(m[2]!));
    }
    const {db} = await openStore(values.db, 'read');
    try {
      const r = await localizationReport(db, sources);
      if (values.json) {
        printJson(r);
        return EXIT.ok;
      }
      const f = (x: number | null) => (x === null ? '   —' : x.toFixed(2).padStart(4));
      say(
        `Localization against the gold patch: ${r.runs.length} runs (F1; function level where a checkout is at hand)`,
      );
      say('');
      say(
        `${'agent'.padEnd(34)} runs  file F1  function F1 (runs)   with reasoning: file · function   without: file · function`,
      );
      for (const a of r.agents)
        say(
          `${a.agent.slice(0, 34).padEnd(34)} ${String(a.runs).padStart(4)}     ${f(a.file_f1)}         ${f(a.function_f1)} (${a.function_runs})            ${String(a.with_reasoning.runs).padStart(3)} runs ${f(a.with_reasoning.file_f1)} · ${f(a.with_reasoning.function_f1)}     ${String(a.without_reasoning.runs).padStart(3)} runs ${f(a.without_reasoning.file_f1)} · ${f(a.without_reasoning.function_f1)}`,
        );
      for (const n of r.notes) say(`note: ${n}`);
      return EXIT.ok;
    } finally {
      db.close();
    }
  }
  if (sub !== 'report') throw new UsageError(`reasoning takes tag, report, localization or check (got "${sub}")`);
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
