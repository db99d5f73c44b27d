import {say, warn} from './output.js';
import {writeFileSync} from 'node:fs';
import {openStore} from './db-path.js';
import {join} from 'node:path';
import {forget, makeTempDir} from '../services/leftovers.js';
import {INSTALL_HINT, SandboxMissing} from '../services/sandbox.js';
import {getTrajectory, type TrajectoryDetail} from '../store/trajectories.js';
import {NotFound} from './show.js';
import {DELTA_OPTIONS, type DeltaOption} from '../core/trace/delta.js';
import {landing} from '../core/trace/landing.js';
import {getTrace} from '../store/traces.js';
import {PythonError} from '../services/python.js';
import {
  CONFIRM_ROUNDS,
  Interrupted,
  VALUE_BUDGET,
  tracePair,
  TraceRunError,
  DEFAULT_LIMITS,
} from '../services/tracing.js';
import {WorkspaceError, type WorkspaceSpec} from '../services/workspace.js';
import {hasRecord, InstanceTraceError, planInstanceTrace} from '../services/instance-trace.js';
import {ImageError, imagePython, imageRoot, type ImageRoot} from '../services/images.js';
import type {RunnerMode} from '../core/instances/runner.js';
import type {Db} from '../store/db.js';
import {sanitize} from '../core/text/sanitize.js';
import {COMMON_OPTIONS, EXIT, oneOf, parse, positiveInt, printJson, UsageError} from './args.js';
import {passEnvOption} from './pass-env.js';
import {deltaJson, describeDelta, whereLine} from './trace-json.js';

export const TRACE_HELP = `Usage: deltalens trace --instance ID --repo CLONE (--gold | --prediction NAME | --trajectory N | --patch FILE)
         [--test NAME | --all-tests] [options]
       deltalens trace --test NODEID
         (--repo DIR (--buggy REV --patched REV | --patch FILE [--buggy REV]) | --buggy-dir D --patched-dir D)
         [options]

Trace one test on the buggy and the patched program, store both traces, and print the
delta behaviour: the first difference between the two executions (ExplainBench Algorithm 1).

A SWE-bench instance (its record imported with deltalens instances import):
  --instance ID       the instance; with --repo CLONE (a clone of its repository, bare or not)
                      and no revision or directory flags, the trees come from its record: its
                      base commit with its test patch is the buggy side, that plus the chosen
                      patch the patched side, exported from the clone
  --gold              the record's gold patch
  --prediction NAME   the patch of NAME's prediction for it (model_name_or_path of an imported
                      predictions file)
  --trajectory N      the patch of a stored run on it; --patch FILE a patch of yours
  --test NAME         one of its tests, as SWE-bench names them (default: the first of
                      FAIL_TO_PASS); run as the harness runs that repository: Django's
                      tests/runtests.py for "test_x (module.Class)", unittest for that form
                      elsewhere, pytest for node ids, and a bare sympy name as bin/test runs it
                      (its function called, found in the files the test patch touches)
  --all-tests         trace each FAIL_TO_PASS test in turn (a pair each)

Trees:
  --repo DIR          a project (a git repository for --buggy/--patched revisions)
  --buggy REV         buggy revision (with --patch: the revision to patch, default HEAD)
  --patched REV       patched revision
  --patch FILE        a unified diff applied to the buggy tree with git apply
  --trajectory ID     the patch an agent submitted in a stored trajectory (with --repo at the
                      instance's base commit); the pair is linked to the trajectory
  --buggy-dir D       a ready buggy tree (copied: the test never runs in it)
  --patched-dir D     a ready patched tree; the patch is the difference between the two
                      (ignoring .git and caches)
  --keep              keep the throw-away trees (their paths are printed)

Sandbox (the patch and its tests are untrusted code):
  Every run is confined by bubblewrap: it can write only its throw-away tree and a private
  /tmp, sees no network, not your repository, home folder or database, and everything it
  starts dies with it. Without bwrap the command refuses to run (${INSTALL_HINT}).
  --pass-env NAME     pass this environment variable into the runs (repeatable; the rest of
                      the environment stays out: PATH, locale and the tracer's own only)
  --no-sandbox        run unconfined anyway (a warning on every run; stored with the traces)

Tracing:
  --test NODEID       the pytest node id (or a script path) to run, relative to the tree
  --runner MODE       how it runs: auto (default: a pytest node id, or a script — a .py not
                      named test_*, its exit code the verdict), pytest, script, unittest
                      (module.Class.test), django (tests/runtests.py with that label),
                      function (FILE::test called as sympy's bin/test calls it)
  --image NAME        run in a container image's file system (a SWE-bench evaluation image:
                      its interpreter, packages and /testbed): an unpacked root folder, a .tar
                      of one (docker export), or an image podman mounts (or Docker exports);
                      no container runs, bubblewrap confines as always. With --instance it
                      replaces --repo; else --patch FILE applies to its /testbed. --python is
                      then a path in the image (default its conda env's, or python3)
  --python EXE        Python to run the tracer with (default $DELTALENS_PYTHON or python3; 3.6–3.13)
  --timeout S         wall-clock seconds per traced run; the process group is killed (default ${DEFAULT_LIMITS.timeoutS})
  --max-events N      stop recording after N events (default ${DEFAULT_LIMITS.maxEvents})
  --max-bytes B       stop recording after B bytes of trace (default ${DEFAULT_LIMITS.maxBytes})
  --no-focus          record every function under the tree, not only the call paths to the
                      patch-modified functions
  --no-rerun          do not confirm a found delta with a second run per side (by default the
                      second runs record values at the delta point, and a difference whose
                      values also vary between two runs of one side is no evidence)
  --confirm-rounds N  when the difference at the delta point varies, confirm the next point the
                      walk finds with another targeted run, up to N points in all, before
                      re-running with values wherever the first runs have them (default ${CONFIRM_ROUNDS})
  --no-plugins        do not load installed pytest plugins (faster start)
  --seed N            seed random, numpy's global generator and every generator the program
                      makes without a seed, before each test, the same on both sides (default 0;
                      stored with the pair)
  --no-seed           leave randomness as the program has it (the re-runs then find what varies)
  --values WHERE      planned (default): a first run per side records every value for its
                      first --value-budget events and control flow after; when both runs stay
                      within it they are the trace, else values are recorded in a second run
                      only where the delta walk compares them (and a few steps past where
                      control flow splits); all: values at every step, one run per side
                      (larger and slower; every step can be inspected in the stepper)
  --value-budget N    events the first run records with values (default ${VALUE_BUDGET.toLocaleString('en')}); 0: control
                      flow only, so every pair gets a planned run

Delta:
  --option NAME       a comparison option (repeatable), off by default: the public
                      ExplainBench code's behaviours, and two of ours:
${Object.entries(DELTA_OPTIONS)
  .map(([name, text]) => `                        ${name}: ${text}`)
  .join('\n')}

Stored as:
  --instance ID       instance id (default local/<directory name>)
  --label NAME        a label for this patch (e.g. gold, agent-wrong)
  --db FILE           database (default ./deltalens.db, created when missing)
  --json              print the delta as JSON: {"status", "kind", "function", "file", "line",
                      "timing", "variables", "buggy_outcome", "patched_outcome", "traces",
                      "events", "pair", "values", "confirmation", …}

Exit codes: 0 delta computed (found or ∅), 1 a trace is missing, crashed, timed out or
truncated before any difference (the delta is then "incomplete"), 2 usage error.`;

function confirmRounds(value: string | undefined): number | undefined {
  const n = positiveInt(value, '--confirm-rounds');
  if (n === 0) throw new UsageError('--confirm-rounds takes 1 or more (--no-rerun turns confirmation off)');
  return n;
}

function integer(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new UsageError(`${flag} takes a whole number (got "${value}")`);
  return Number(value);
}

export function parseDeltaOptions(values: string[] | undefined): DeltaOption[] {
  return (values ?? []).map(v => oneOf(v, Object.keys(DELTA_OPTIONS) as DeltaOption[], '--option')!);
}

function parseTraceArgs(argv: string[]) {
  return parse(
    argv,
    {
      ...COMMON_OPTIONS,
      test: {type: 'string'},
      repo: {type: 'string'},
      buggy: {type: 'string'},
      patched: {type: 'string'},
      patch: {type: 'string'},
      'buggy-dir': {type: 'string'},
      'patched-dir': {type: 'string'},
      python: {type: 'string'},
      instance: {type: 'string'},
      label: {type: 'string'},
      keep: {type: 'boolean'},
      timeout: {type: 'string'},
      'max-events': {type: 'string'},
      'max-bytes': {type: 'string'},
      'no-focus': {type: 'boolean'},
      'no-rerun': {type: 'boolean'},
      'confirm-rounds': {type: 'string'},
      'value-budget': {type: 'string'},
      'no-plugins': {type: 'boolean'},
      option: {type: 'string', multiple: true},
      trajectory: {type: 'string'},
      gold: {type: 'boolean'},
      prediction: {type: 'string'},
      'all-tests': {type: 'boolean'},
      image: {type: 'string'},
      runner: {type: 'string'},
      'no-sandbox': {type: 'boolean'},
      seed: {type: 'string'},
      'no-seed': {type: 'boolean'},
      values: {type: 'string'},
      'pass-env': {type: 'string', multiple: true},
    },
    false,
  );
}

export async function runTrace(argv: string[]): Promise<number> {
  const {values} = parseTraceArgs(argv);
  if (values.help) {
    say(TRACE_HELP);
    return EXIT.ok;
  }
  const trajectoryId = positiveInt(values.trajectory, '--trajectory');
  const instanceFlags = values.gold || values.prediction !== undefined || values['all-tests'];
  const treeFlags = values.buggy || values.patched || values['buggy-dir'] || values['patched-dir'];
  if (instanceFlags && (!values.instance || !(values.repo || values.image) || treeFlags)) {
    throw new UsageError(
      '--gold, --prediction and --all-tests take --instance ID and --repo CLONE or --image NAME (and no revision or directory flags)',
    );
  }
  if (values['all-tests'] && values.test) throw new UsageError('give --test NAME or --all-tests, not both');
  runnerOption(values.runner);
  if (values.runner && values.instance && (values.repo || values.image) && !treeFlags)
    throw new UsageError(
      "--runner is for trees you give: an instance's tests run the way SWE-bench runs its repository",
    );
  if (values.image && values['no-sandbox'])
    throw new UsageError(
      "--image runs inside the sandbox (the image's file system becomes the run's system): not with --no-sandbox",
    );
  if (values.image && values.repo && values.instance)
    throw new UsageError(
      "give --repo CLONE or --image NAME for the instance's repository, not both (the image has it at /testbed)",
    );
  if (values.instance && (values.repo || values.image) && !treeFlags) {
    // an instance with a record: the trees from it (checked against the store)
    const {db: probe} = await openStore(values.db, 'create');
    let record = false;
    try {
      record = hasRecord(probe, values.instance);
    } finally {
      probe.close();
    }
    if (record) return traceInstance(values, trajectoryId);
    if (instanceFlags)
      throw new UsageError(
        `${values.instance} has no imported record (deltalens instances import FILE), so --gold, --prediction and --all-tests cannot be used`,
      );
  }
  if (!values.test) throw new UsageError('trace needs --test NODEID (see deltalens trace --help)');
  let spec: WorkspaceSpec;
  if (trajectoryId !== undefined && (!values.repo || values.patch || values.patched || values['buggy-dir'])) {
    throw new UsageError(
      '--trajectory ID takes --repo DIR (and optionally --buggy REV), not --patch, --patched or directories',
    );
  }
  if (values['buggy-dir'] || values['patched-dir']) {
    if (!values['buggy-dir'] || !values['patched-dir'])
      throw new UsageError('--buggy-dir and --patched-dir go together');
    if (values.repo || values.patch || values.buggy || values.patched)
      throw new UsageError('--buggy-dir/--patched-dir cannot be combined with --repo, --patch or revisions');
    spec = {kind: 'dirs', buggyDir: values['buggy-dir'], patchedDir: values['patched-dir']};
  } else if (values.image && !values.repo) {
    if (!values.patch)
      throw new UsageError(
        "with --image and no --instance: --patch FILE (applied to the image's /testbed), or --buggy-dir and --patched-dir",
      );
    spec = {kind: 'patch', repo: '', patch: values.patch, copy: true};
  } else if (values.repo) {
    if (values.patch || trajectoryId !== undefined) {
      if (values.patched) throw new UsageError('give either --patched REV or --patch FILE, not both');
      spec = {kind: 'patch', repo: values.repo, buggy: values.buggy, patch: values.patch ?? ''};
    } else {
      if (!values.buggy || !values.patched)
        throw new UsageError('--repo needs --buggy REV and --patched REV, or --patch FILE');
      spec = {kind: 'revs', repo: values.repo, buggy: values.buggy, patched: values.patched};
    }
  } else {
    throw new UsageError(
      'say which trees to compare: --repo DIR with revisions or --patch, or --buggy-dir and --patched-dir',
    );
  }
  return runJobs(values, async (db, image) => {
    if (spec.kind === 'patch' && image && !spec.repo) {
      if (!image.testbed)
        throw new NotFound(`the image has no /testbed to patch (${image.how}): give --buggy-dir and --patched-dir`);
      spec.repo = image.testbed;
    }
    let trajectory: TrajectoryDetail | null = null;
    if (trajectoryId !== undefined && spec.kind === 'patch') {
      trajectory = getTrajectory(db, trajectoryId);
      if (!trajectory) throw new NotFound(`no trajectory with id ${trajectoryId}`);
      if (!trajectory.patch?.trim()) throw new NotFound(`trajectory ${trajectoryId} has no patch to trace`);
      const patchDir = makeTempDir('patch');
      spec.patch = join(patchDir, `trajectory-${trajectoryId}.diff`);
      writeFileSync(spec.patch, trajectory.patch.endsWith('\n') ? trajectory.patch : `${trajectory.patch}\n`);
      return {
        jobs: [
          {
            spec,
            test: values.test!,
            mode: runnerOption(values.runner),
            instance: values.instance ?? trajectory.instance,
            label: values.label ?? `trajectory #${trajectory.id} (${trajectory.agent})`,
            trajectory: trajectory.id,
            versionKind: 'agent',
          },
        ],
        cleanup: () => forget(patchDir),
      };
    }
    return {
      jobs: [
        {
          spec,
          test: values.test!,
          mode: runnerOption(values.runner),
          instance: values.instance,
          label: values.label,
          trajectory: null,
          versionKind: 'agent',
        },
      ],
    };
  });
}

type TraceValues = ReturnType<typeof parseTraceArgs>['values'];

const RUNNERS = ['auto', 'pytest', 'script', 'unittest', 'django', 'function'] as const;

/** --runner: how the test runs (auto: a pytest node id, or a script). */
function runnerOption(value: string | undefined): RunnerMode | undefined {
  const mode = oneOf(value, RUNNERS, '--runner');
  return mode === undefined || mode === 'auto' ? undefined : mode;
}

interface Job {
  spec: WorkspaceSpec;
  test: string;
  mode?: RunnerMode;
  /** the test as the instance names it, and how it runs (instance records) */
  testId?: string;
  how?: string;
  instance?: string;
  label?: string;
  trajectory: number | null;
  versionKind: 'gold' | 'agent';
}

/** A SWE-bench instance: the trees and tests from its record. */
async function traceInstance(values: TraceValues, trajectoryId: number | undefined): Promise<number> {
  return runJobs(values, async (db, image) => {
    if (image && !image.testbed)
      throw new NotFound(`the image has no /testbed, where a SWE-bench image keeps the repository (${image.how})`);
    let plan;
    try {
      plan = await planInstanceTrace(db, {
        instance: values.instance!,
        repo: values.repo ?? image!.testbed!,
        imageTestbed: image?.testbed ?? undefined,
        choice: {gold: values.gold, prediction: values.prediction, trajectory: trajectoryId, patchFile: values.patch},
        test: values.test,
        allTests: values['all-tests'],
      });
    } catch (error) {
      if (error instanceof InstanceTraceError) throw new NotFound(error.message);
      throw error;
    }
    return {
      jobs: plan.tests.map(t => ({
        spec: plan.spec,
        test: t.target,
        mode: t.mode,
        testId: t.id,
        how: t.how,
        instance: values.instance,
        label: values.label ?? plan.label,
        trajectory: plan.trajectory,
        versionKind: plan.versionKind,
      })),
    };
  });
}

/** The pairs of one command (one, or one per test with --all-tests): traced in turn, printed as each ends. */
async function runJobs(
  values: TraceValues,
  prepare: (db: Db, image: ImageRoot | null) => Promise<{jobs: Job[]; cleanup?: () => void}>,
): Promise<number> {
  const options = parseDeltaOptions(values.option);
  const valuesMode = oneOf(values.values ?? 'planned', ['planned', 'all'] as const, '--values')!;
  if (values['no-seed'] && values.seed !== undefined) throw new UsageError('give --seed N or --no-seed, not both');
  const passEnv = passEnvOption(values['pass-env']);
  const {db, path: dbPath} = await openStore(values.db, 'create');
  const verbose = !values.json;
  let cleanup: (() => void) | undefined;
  // Ctrl+C / SIGTERM: stop the runs, take their rows and trees away, exit; a second one quits at once
  const controller = new AbortController();
  let signals = 0;
  let received: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    received = signal;
    if (signals > 1) process.exit(signal === 'SIGINT' ? 130 : 143);
    warn(
      `deltalens: ${signal}: stopping the runs; their unfinished traces and throw-away trees are removed (again to quit at once)`,
    );
    controller.abort();
  };
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map(signal => {
    const handler = () => onSignal(signal);
    process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  try {
    let image: ImageRoot | null = null;
    let python = values.python ?? process.env.DELTALENS_PYTHON ?? 'python3';
    if (values.image) {
      try {
        image = await imageRoot(values.image);
        python = imagePython(image.root, values.python);
      } catch (error) {
        if (error instanceof ImageError) throw new NotFound(error.message);
        throw error;
      }
      if (verbose)
        warn(`image: ${image.how}; its interpreter ${python}${image.testbed ? '; its repository at /testbed' : ''}`);
    }
    const prepared = await prepare(db, image);
    cleanup = prepared.cleanup;
    const printed: ReturnType<typeof deltaJson>[] = [];
    let incomplete = false;
    for (const [i, job] of prepared.jobs.entries()) {
      if (job.testId && verbose) warn(`test ${i + 1} of ${prepared.jobs.length}: ${job.testId} — ${job.how}`);
      const result = await tracePair(db, job.spec, {
        python,
        image: image?.root,
        test: job.test,
        mode: job.mode,
        instance: job.instance,
        label: job.label,
        trajectory: job.trajectory,
        versionKind: job.versionKind,
        keep: values.keep,
        reruns: !values['no-rerun'],
        confirmRounds: confirmRounds(values['confirm-rounds']),
        focus: !values['no-focus'],
        pytestPlugins: !values['no-plugins'],
        deltaOptions: options,
        sandbox: values['no-sandbox'] ? 'off' : 'require',
        seed: values['no-seed'] ? null : (integer(values.seed, '--seed') ?? 0),
        values: valuesMode,
        valueBudget: positiveInt(values['value-budget'], '--value-budget'),
        passEnv,
        signal: controller.signal,
        onWarning: message => warn(`deltalens: warning: ${message}`),
        limits: {
          ...(values.timeout ? {timeoutS: positiveInt(values.timeout, '--timeout')} : {}),
          ...(values['max-events'] ? {maxEvents: positiveInt(values['max-events'], '--max-events')} : {}),
          ...(values['max-bytes'] ? {maxBytes: positiveInt(values['max-bytes'], '--max-bytes')} : {}),
        },
        onProgress: message => {
          if (verbose || process.stderr.isTTY) warn(message);
        },
      });
      if (result.delta.status === 'incomplete') incomplete = true;
      const buggy = getTrace(db, result.buggy.trace);
      const patched = getTrace(db, result.patched.trace);
      const extra = {
        pair: result.pair,
        ...(job.testId ? {instance: job.instance, test: job.testId, runner: job.mode, patch_label: job.label} : {}),
        changed_functions: result.changes.functions.map(f => `${f.file}:${f.qualname}`),
        landing: landing(result.delta, result.changes),
        focus: result.focus,
        hypothesis: result.hypothesis.mode === 'off' ? null : result.hypothesis,
        nondeterministic: result.nondeterministic,
        workspace: result.workspace.kept ? {buggy: result.workspace.buggy, patched: result.workspace.patched} : null,
        sandbox: result.sandbox,
        seed: values['no-seed'] ? null : (integer(values.seed, '--seed') ?? 0),
        values: result.values,
        confirmation: result.confirmation,
        db: dbPath,
      };
      if (values.json) {
        printed.push(deltaJson(result.delta, buggy, patched, extra));
        continue;
      }
      if (job.testId)
        say(
          `${prepared.jobs.length > 1 ? '\n' : ''}${sanitize(job.instance ?? '')} · ${sanitize(job.testId)} · ${sanitize(job.label ?? '')}`,
        );
      say(describeDelta(result.delta, buggy, patched));
      if (extra.landing.kind !== 'no delta') say(whereLine(extra.landing, result.delta.function));
      say(
        `stored as pair #${result.pair} in ${dbPath}${result.workspace.kept ? `; trees kept at ${result.workspace.buggy} and ${result.workspace.patched}` : ''}`,
      );
    }
    if (values.json)
      printJson(
        printed.length === 1 && !values['all-tests'] ? printed[0] : {instance: values.instance, tests: printed},
      );
    return incomplete ? EXIT.failed : EXIT.ok;
  } catch (error) {
    if (error instanceof Interrupted) {
      warn('deltalens: interrupted: nothing of this run was kept');
      return received === 'SIGINT' ? 130 : received === 'SIGTERM' ? 143 : 129;
    }
    if (
      error instanceof SandboxMissing ||
      error instanceof PythonError ||
      error instanceof WorkspaceError ||
      error instanceof TraceRunError
    ) {
      warn(`deltalens: ${error.message}`);
      return EXIT.failed;
    }
    throw error;
  } finally {
    for (const off of handlers) off();
    db.close();
    cleanup?.();
  }
}
