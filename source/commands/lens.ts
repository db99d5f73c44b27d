import {pad, padMiddle} from '../core/text/sanitize.js';
import {cell, say, warn} from './output.js';
import {RANKING_HEADER, rankingRow, type LensResult, type RunScore} from '../core/lens/build.js';
import {labelAll, loadLensResult, removeStageOverride, setStageOverride, stageAgreement} from '../store/lens.js';
import {labelledStage, stageCounts} from '../store/trajectories.js';
import {referenceView} from '../services/lens.js';
import {describeState} from '../core/lens/quality.js';
import type {PtaNode} from '../core/lens/pta.js';
import {ptaLines} from '../ui/pta-lines.js';
import {NotFound} from './show.js';
import {existsSync} from 'node:fs';
import {resolve} from 'node:path';
import {runLensBuildWithSources} from '../services/lens.js';
import {withDb, withDbAsync} from './db-path.js';
import {COMMON_OPTIONS, EXIT, parse, positiveInt, printJson, UsageError} from './args.js';

export const LENS_HELP = `Usage: deltalens lens label [--json]
       deltalens lens build [--instance I] [--min-passing N] [--exclude-lucky] [--threshold Q]
                            [--source INSTANCE=DIR]... [--json]
       deltalens lens report [--json]
       deltalens lens override TRAJECTORY STEP STAGE --annotator NAME [--note TEXT] [--json]
       deltalens lens override TRAJECTORY STEP --remove --annotator NAME
       deltalens lens agreement [--json]
       deltalens lens reference TRAJECTORY [--json]

AgentLens: how a run passed, not only whether it did (readme.md "Process lens").

  label      give every step of every stored run an intent stage (E exploration,
             I implementation, V verification, O orchestration) and the rule that fired.
             Imports label new runs already; this relabels a database.
  build      for every task with at least N passing runs (default 2): score each run
             against a reference merged from the task's other passing runs (leave-one-out),
             with four signals (coherence, structural alignment, set coverage, temporal
             profile) → quality 0–100; calibrate the pass/fail threshold on the scored runs;
             tier passing runs Ideal / Solid / Lucky; find waste and the mechanism of each
             Lucky pass; rank agents by pass rate and by quality. Replaces the stored build.
             --exclude-lucky rebuilds the references without the runs the previous round
             called Lucky, until that set stops changing (at most 5 rounds).
             --threshold fixes the threshold instead of calibrating it.
             --source INSTANCE=DIR: the task's checkout, so states get the function or
             class they touch (Python's ast via deltatrace scopes; no code runs); the demo
             projects' sources are used for their tasks without asking.
  report     the stored build: threshold, runs with signals, tiers, mechanisms and waste,
             rankings, and the tasks skipped and why.
  override   record a person's stage for a step (the labeller's stays; lens build uses the
             person's); --remove takes it back.
  agreement  Cohen's κ between the labeller and the people who corrected stages.
  reference  the reference a run was scored against (its task's other passing runs merged
             into a prefix tree, the Lucky runs lens build left out excluded), the run's path
             through it and where it leaves — what P shows in the explorer. With --json:
             {"trajectory", "instance", "agent", "resolved", "reference_runs", "excluded_lucky",
             "leaves_at": {"state", "step", "what"} | null, "states": [{"step", "what", "on_path"}],
             "tree": {"id", "what", "support", "runs", "on_path", "children": […]}}.

Options:
  --db FILE   database (default ./deltalens.db if present, else the bundled demo database)
  --json      print JSON`;

export async function runLens(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    say(LENS_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  const commands: Record<string, (rest: string[]) => Promise<number>> = {
    label,
    build,
    report,
    override,
    agreement,
    reference,
  };
  const run = commands[sub];
  if (!run) throw new UsageError(`lens takes label, build, report, override, agreement or reference (got "${sub}")`);
  return run(rest);
}

function help(values: {help?: boolean}): boolean {
  if (values.help) say(LENS_HELP);
  return Boolean(values.help);
}

async function label(argv: string[]): Promise<number> {
  const {values} = parse(argv, {...COMMON_OPTIONS}, false);
  if (help(values)) return EXIT.ok;
  return withDb(values.db, 'write', db => {
    const r = labelAll(db);
    const stages = stageCounts(db);
    if (values.json)
      printJson({
        trajectories: r.trajectories,
        steps: r.steps,
        stages: Object.fromEntries(stages.map(s => [s.stage ?? 'none', s.n])),
      });
    else
      say(
        `labelled ${r.steps} steps of ${r.trajectories} trajectories: ${stages.map(s => `${s.stage ?? 'none'} ${s.n}`).join(', ')}`,
      );
    return EXIT.ok;
  });
}

async function build(argv: string[]): Promise<number> {
  const {values} = parse(
    argv,
    {
      ...COMMON_OPTIONS,
      instance: {type: 'string'},
      'min-passing': {type: 'string'},
      'exclude-lucky': {type: 'boolean'},
      threshold: {type: 'string'},
      source: {type: 'string', multiple: true},
    },
    false,
  );
  if (help(values)) return EXIT.ok;
  const minPassing = positiveInt(values['min-passing'], '--min-passing') ?? 2;
  if (minPassing < 2)
    throw new UsageError(
      '--min-passing must be at least 2: each run is scored against the other passing runs of its task',
    );
  let threshold: number | undefined;
  if (values.threshold !== undefined) {
    threshold = Number(values.threshold);
    if (!Number.isFinite(threshold) || threshold < 0 || threshold > 100)
      throw new UsageError(`--threshold takes a quality between 0 and 100 (got "${values.threshold}")`);
  }
  const sources = new Map((await demoSources()).map(p => [p.instance, p.dir] as const));
  for (const s of values.source ?? []) {
    const m = /^([^=]+)=(.+)$/.exec(s);
    if (!m) throw new UsageError(`--source takes INSTANCE=DIR (got "${s}")`);
    if (!existsSync(m[2]!)) throw new UsageError(`--source ${m[1]}: no directory ${m[2]}`);
    sources.set(m[1]!, resolve(m[2]!));
  }
  return withDbAsync(values.db, 'write', async db => {
    let result;
    try {
      result = await runLensBuildWithSources(
        db,
        {minPassing, excludeLucky: values['exclude-lucky'], instance: values.instance, threshold},
        sources,
      );
    } catch (error) {
      if (error instanceof RangeError) throw new UsageError(error.message);
      throw error;
    }
    if (values.json) {
      printJson(
        toJson(result, {
          overridden_steps: result.overridden_steps,
          unlabelled_runs: result.unlabelled_runs,
          scopes: result.scopes,
        }),
      );
      return EXIT.ok;
    }
    printSummary(result);
    if (result.overridden_steps) say(`${result.overridden_steps} step stage(s) come from people's corrections`);
    if (result.scopes.states)
      say(`${result.scopes.states} state(s) placed in a function or class from the task's source`);
    for (const p of result.scopes.problems) say(`scopes: ${p}`);
    if (result.unlabelled_runs.length)
      say(
        `${result.unlabelled_runs.length} run(s) have no labelled steps (run \`deltalens lens label\`): ${result.unlabelled_runs.join(', ')}`,
      );
    say('(deltalens lens report for every run; --json for scripts)');
    return EXIT.ok;
  });
}

/** The demo projects' checkouts (sample-data/projects/NAME/repo), by instance. */
async function demoSources(): Promise<{instance: string; dir: string}[]> {
  return (await import('../services/demo.js')).demoCheckouts();
}

async function report(argv: string[]): Promise<number> {
  const {values} = parse(argv, {...COMMON_OPTIONS}, false);
  if (help(values)) return EXIT.ok;
  return withDb(values.db, 'read', db => {
    const stored = loadLensResult(db);
    if (!stored) {
      warn('deltalens: no lens build in this database yet: run `deltalens lens build` first');
      return EXIT.failed;
    }
    if (values.json) {
      printJson(toJson(stored, {built_at: stored.built_at}));
      return EXIT.ok;
    }
    say(`lens build of ${stored.built_at}  (${describeOptions(stored.options)})`);
    printSummary(stored);
    say('');
    printRuns(stored.runs);
    const lucky = stored.runs.filter(r => r.tier === 'Lucky');
    if (lucky.length) {
      say('\nLucky passes');
      for (const r of lucky) {
        say(`  #${r.trajectory} ${r.instance} ${r.agent}: ${r.mechanism!.id} ${r.mechanism!.name}`);
        for (const e of r.mechanism!.evidence) say(`      ${e}`);
      }
    }
    say('\nRankings (shift = pass-rate rank − quality rank; ▲ moves up by quality)');
    printRankings(stored.rankings);
    return EXIT.ok;
  });
}

async function override(argv: string[]): Promise<number> {
  const {values, positionals} = parse(argv, {
    ...COMMON_OPTIONS,
    annotator: {type: 'string'},
    note: {type: 'string'},
    remove: {type: 'boolean'},
  });
  if (help(values)) return EXIT.ok;
  const [trajectory, step, stage] = positionals;
  const id = positiveInt(trajectory, 'TRAJECTORY');
  const idx = positiveInt(step, 'STEP');
  if (id === undefined || idx === undefined)
    throw new UsageError('lens override takes TRAJECTORY STEP STAGE (see deltalens lens --help)');
  const annotator = values.annotator ?? process.env.DELTALENS_ANNOTATOR;
  if (!annotator) throw new UsageError('lens override needs --annotator NAME (or $DELTALENS_ANNOTATOR)');
  return withDb(values.db, 'write', db => {
    try {
      if (values.remove) {
        const removed = removeStageOverride(db, id, idx, annotator);
        if (values.json) printJson({trajectory: id, step: idx, annotator, removed});
        else
          say(
            removed
              ? `removed ${annotator}'s stage for step ${idx} of #${id}`
              : `${annotator} had no stage for step ${idx} of #${id}`,
          );
        return removed ? EXIT.ok : EXIT.failed;
      }
      if (!stage) throw new UsageError('lens override takes TRAJECTORY STEP STAGE (E, I, V or O)');
      setStageOverride(db, {trajectory: id, idx, annotator, stage: stage.toUpperCase(), note: values.note});
    } catch (error) {
      if (error instanceof RangeError) throw new UsageError(error.message);
      throw error;
    }
    const labeller = labelledStage(db, id, idx);
    if (values.json) printJson({trajectory: id, step: idx, annotator, stage: stage!.toUpperCase(), labeller});
    else
      say(
        `#${id} step ${idx}: ${annotator} says ${stage!.toUpperCase()} (labeller: ${labeller ?? 'none'}); run lens build to rescore`,
      );
    return EXIT.ok;
  });
}

async function agreement(argv: string[]): Promise<number> {
  const {values} = parse(argv, {...COMMON_OPTIONS}, false);
  if (help(values)) return EXIT.ok;
  return withDb(values.db, 'read', db => {
    const a = stageAgreement(db);
    if (values.json) {
      printJson({
        categories: a.overall.categories,
        overall: {
          n: a.overall.n,
          raw: a.overall.raw,
          cohen_kappa: a.overall.cohen_kappa,
          confusion: a.overall.confusion,
        },
        annotators: a.annotators.map(x => ({
          annotator: x.annotator,
          n: x.n,
          raw: x.raw,
          cohen_kappa: x.cohen_kappa,
          confusion: x.confusion,
        })),
        note: 'rows: the labeller; columns: the person',
      });
      return EXIT.ok;
    }
    if (!a.overall.n) {
      say("no step has a person's stage yet (deltalens lens override, or o in the explorer's trajectory view)");
      return EXIT.ok;
    }
    say(
      `labeller vs people: ${a.overall.n} steps, raw agreement ${pct(a.overall.raw)}, Cohen's κ ${fmt(a.overall.cohen_kappa)}`,
    );
    for (const x of a.annotators)
      say(
        `  ${pad(cell(x.annotator), 16)} ${String(x.n).padStart(5)} steps  raw ${pct(x.raw)}  κ ${fmt(x.cohen_kappa)}`,
      );
    say('\nconfusion (rows labeller, columns people)');
    say(`     ${a.overall.categories.map(c => c.padStart(5)).join('')}`);
    a.overall.confusion.forEach((row, i) =>
      say(`  ${a.overall.categories[i]}  ${row.map(n => String(n).padStart(5)).join('')}`),
    );
    return EXIT.ok;
  });
}

/** The JSON of a build: threshold, runs, skipped, rankings (issue 5's shape), plus rounds and options. */
function toJson(r: LensResult, extra: Record<string, unknown>) {
  return {
    threshold: r.threshold,
    runs: r.runs,
    skipped: r.skipped,
    rankings: r.rankings,
    rounds: r.rounds,
    options: r.options,
    ...extra,
  };
}

function describeOptions(o: LensResult['options']): string {
  return [
    `min-passing ${o.min_passing}`,
    o.exclude_lucky ? 'exclude-lucky' : null,
    o.instance ? `instance ${o.instance}` : null,
    o.fixed_threshold !== null ? `threshold ${o.fixed_threshold}` : null,
  ]
    .filter(Boolean)
    .join(', ');
}

function printSummary(r: LensResult): void {
  const t = r.threshold;
  say(
    `threshold ${t.value}${t.calibrated ? ` (balanced accuracy ${t.balanced_accuracy}; ${t.note})` : ` (${t.note})`}; Ideal from ${t.ideal}`,
  );
  const passing = r.runs.filter(s => s.tier);
  const count = (tier: string) => passing.filter(s => s.tier === tier).length;
  const tasks = new Set(r.runs.map(s => s.instance)).size;
  say(
    `scored ${r.runs.length} runs of ${tasks} task(s): ${passing.length} passing → Ideal ${count('Ideal')}, Solid ${count('Solid')}, Lucky ${count('Lucky')}`,
  );
  if (r.rounds.length > 1 || r.options.exclude_lucky)
    say(
      `exclude-lucky: ${r.rounds.length} round(s); ${r.rounds.map(x => `round ${x.round} excluded [${x.excluded.join(', ')}] → Lucky [${x.lucky.join(', ')}]`).join('; ')}`,
    );
  if (r.skipped.length) {
    say(`skipped ${r.skipped.length} task(s):`);
    for (const s of r.skipped) say(`  ${s.instance}: ${s.reason}`);
  }
}

function printRuns(runs: RunScore[]): void {
  say(
    `${'run'.padStart(5)}  ${'instance'.padEnd(24)} ${'agent'.padEnd(28)} res  qual  coh  aln  cov  tmp  tier   mech  waste`,
  );
  for (const r of runs) {
    const s = r.signals;
    say(
      `${`#${r.trajectory}`.padStart(5)}  ${pad(cell(r.instance), 24)} ${padMiddle(cell(r.agent), 28)} ${r.resolved === null ? ' ? ' : r.resolved ? 'yes' : 'no '}  ${r.quality.toFixed(1).padStart(4)} ${[s.coherence, s.alignment, s.coverage, s.temporal].map(x => x.toFixed(2).padStart(4)).join(' ')}  ${(r.tier ?? '-').padEnd(6)} ${(r.mechanism?.id ?? '-').padEnd(4)}  ${r.waste.map(w => w.signal).join(', ') || '-'}`,
    );
  }
}

function printRankings(rows: LensResult['rankings']): void {
  say(`  ${RANKING_HEADER}`);
  for (const a of rows) say(`  ${rankingRow(a)}`);
}

const pct = (x: number | null) => (x === null ? '-' : `${Math.round(x * 100)}%`);
const fmt = (x: number | null) => (x === null ? 'undefined' : x.toFixed(3));

async function reference(argv: string[]): Promise<number> {
  const {values, positionals} = parse(argv, {...COMMON_OPTIONS});
  if (help(values)) return EXIT.ok;
  if (positionals.length !== 1 || !/^\d+$/.test(positionals[0]!))
    throw new UsageError('lens reference takes one trajectory id');
  const id = Number(positionals[0]);
  return withDb(values.db, 'read', db => {
    const v = referenceView(db, id);
    if (!v)
      throw new NotFound(`no lens run with id ${id} (a stored trajectory, labelled; lens label labels a database)`);
    const tree = (n: PtaNode): unknown => ({
      id: n.id,
      what: n.state ? describeState(n.state) : 'start',
      support: n.support,
      runs: n.runs,
      on_path: v.path.has(n.id),
      children: n.children.map(tree),
    });
    const leaves =
      v.leftAt === null
        ? null
        : {state: v.leftAt + 1, step: v.states[v.leftAt]!.idx + 1, what: describeState(v.states[v.leftAt]!.state)};
    if (values.json) {
      printJson({
        trajectory: v.trajectory,
        instance: v.instance,
        agent: v.agent,
        resolved: v.resolved,
        reference_runs: v.refRuns,
        excluded_lucky: v.excluded,
        leaves_at: leaves,
        states: v.states.map((s, i) => ({
          step: s.idx + 1,
          what: describeState(s.state),
          on_path: v.leftAt === null || i < v.leftAt,
        })),
        tree: tree(v.root),
      });
      return EXIT.ok;
    }
    say(
      `#${v.trajectory} ${v.agent} on ${v.instance} (${v.resolved === null ? 'status unknown' : v.resolved ? 'resolved' : 'unresolved'}): reference from ${v.refRuns.length} passing run(s) ${v.refRuns.map(r => `#${r}`).join(' ')}${v.excluded.length ? `; Lucky runs left out: ${v.excluded.map(r => `#${r}`).join(' ')}` : ''}`,
    );
    say(
      leaves
        ? `the run leaves the reference at its state ${leaves.state} (step ${leaves.step}: ${leaves.what})`
        : 'the run stays on the reference to its end',
    );
    // the tree as the explorer's P draws it (▶ the run's path, ◆ where it leaves)
    for (const line of ptaLines(v, process.stdout.columns || 100, false, {header: false})) say(line.text);
    return EXIT.ok;
  });
}
