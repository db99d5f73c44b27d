import {cell, printJson, say, warn} from './output.js';
import {COMMON_OPTIONS, EXIT, parse, positiveInt, UsageError} from './args.js';
import {openStore} from './db-path.js';
import {importInstances, RecordError} from '../services/instances.js';
import {batchTrace, type BatchChoice, type BatchJobResult} from '../services/batch-trace.js';
import {DEFAULT_LIMITS} from '../services/tracing.js';
import {emitK8s, IMAGE_TEMPLATE} from '../services/k8s.js';

export const BATCH_HELP = `Usage: deltalens batch trace --instances FILE (--gold | --predictions FILE) --repo-dir DIR
       [--workers N] [--all-tests] [--retry-incomplete] [--python PY] [--timeout S] [--no-sandbox]
       [--json] [--db FILE]
       deltalens batch trace … --emit-k8s DIR [--image-template T] [--pod-python PY]
       [--results-claim NAME]

Traces many SWE-bench instances on this machine, each as trace --instance ID --repo CLONE does
one: its base commit with its test patch against that plus the patch, its first FAIL_TO_PASS
test (--all-tests: every one), run the way SWE-bench runs the repository's tests, sandboxed.
N pairs at once (each runs its two sides side by side: 2N test processes), every pair stored by
this one process as it ends.

  --instances FILE     SWE-bench dataset rows (as instances import reads them); imported first
  --gold               trace each instance's gold patch
  --predictions FILE   trace each prediction in the harness's predictions file instead
                       (instance_id, model_name_or_path, model_patch); imported first
  --repo-dir DIR       where the clones are: DIR/owner__name, DIR/name or DIR/owner/name
  --workers N          pairs traced at once (default 1; each pair uses two cores at its busiest)
  --all-tests          every FAIL_TO_PASS test of an instance, not only its first
  --retry-incomplete   trace again the pairs stored with an incomplete delta (a run that timed
                       out or crashed); by default every stored pair counts as done
  --python PY          the interpreter that runs the tests (default $DELTALENS_PYTHON or python3)
  --timeout S          seconds per traced run (default ${DEFAULT_LIMITS.timeoutS})
  --no-sandbox         run the tests unconfined (said on every run)
  --json               the jobs and the summary as JSON; progress as JSON lines on stderr

--emit-k8s DIR writes the same instances as Kubernetes objects instead of tracing them here
(DIR/k8s.json, a List: the tracer as a ConfigMap, a NetworkPolicy that lets no traffic in or
out, and per instance and test a Job — one pod in the instance's own image, whose /testbed holds
the repository at the base commit — with its job as a ConfigMap), DIR/jobs/*.json and
DIR/README.txt (how to run them and bring the results back). The pods run only the tracer
(python -m deltatrace pod) with the image's interpreter: the test patch applied, the buggy side
traced twice, the patch applied, the patched side traced twice, values everywhere, the files
written to the results volume; deltalens traces import --results DIR stores them here. The
focus and line mapping are worked out here first (the two trees made from the clone, in the
sandbox). Each instance needs its own image, and an Indexed Job has one pod template, so it is
a Job per instance, all labelled app=deltalens-trace.
  --image-template T   the image of an instance: {id} is the instance id, {id_1776} the same
                       with __ written _1776_, as SWE-bench's public images are named (default
                       ${IMAGE_TEMPLATE})
  --pod-python PY      the interpreter in the image (default the testbed environment's,
                       /opt/miniconda3/envs/testbed/bin/python)
  --results-claim NAME the PersistentVolumeClaim the pods write to (default deltalens-results)

Resumable: a pair already stored for the same instance, patch and test is skipped — run the
same command again after Ctrl+C (which keeps every pair that finished and nothing of the ones
it stopped) or a crash. A job that fails (no clone, a patch that does not apply, a run that
crashed) is named in the summary and the batch goes on.

Exit codes: 0 every job traced (found or ∅) or skipped, 1 a job failed, a delta is incomplete or
the batch was interrupted, 2 usage error.`;

/** Seconds in JSON to the hundredth (not 0.0003732310000000041). */
const round2 = (s: number) => Math.round(s * 100) / 100;

function table(jobs: BatchJobResult[]): string[] {
  const rows = jobs.map(j => [
    j.instance,
    j.patch,
    j.test ?? '—',
    j.status,
    j.status === 'failed'
      ? (j.error ?? '')
      : j.delta
        ? j.delta.status === 'found'
          ? `${j.delta.kind} in ${j.delta.function} (${j.delta.file}:${j.delta.line})`
          : j.delta.status
        : '—',
    j.status === 'traced' ? `${j.seconds.toFixed(1)} s` : j.status === 'skipped' ? `pair #${j.pair}` : '',
  ]);
  const head = ['instance', 'patch', 'test', 'status', 'delta', 'time'];
  const width = head.map((h, i) => Math.min(48, Math.max(h.length, ...rows.map(r => cell(r[i]!).length))));
  const line = (r: string[]) =>
    r
      .map((c, i) => {
        const text = cell(c);
        return (text.length > width[i]! ? `${text.slice(0, width[i]! - 1)}…` : text).padEnd(width[i]!);
      })
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)];
}

export async function runBatch(argv: string[]): Promise<number> {
  const {values, positionals} = parse(argv, {
    ...COMMON_OPTIONS,
    instances: {type: 'string'},
    gold: {type: 'boolean'},
    predictions: {type: 'string'},
    'repo-dir': {type: 'string'},
    workers: {type: 'string'},
    'all-tests': {type: 'boolean'},
    'retry-incomplete': {type: 'boolean'},
    python: {type: 'string'},
    timeout: {type: 'string'},
    'no-sandbox': {type: 'boolean'},
    'emit-k8s': {type: 'string'},
    'image-template': {type: 'string'},
    'pod-python': {type: 'string'},
    'results-claim': {type: 'string'},
  });
  if (values.help) {
    say(BATCH_HELP);
    return EXIT.ok;
  }
  if (positionals[0] !== 'trace' || positionals.length !== 1)
    throw new UsageError('batch takes one command: batch trace (see deltalens batch --help)');
  if (!values.instances) throw new UsageError('batch trace needs --instances FILE');
  if (!values['repo-dir']) throw new UsageError('batch trace needs --repo-dir DIR (where the clones are)');
  if (Boolean(values.gold) === Boolean(values.predictions))
    throw new UsageError('say which patches to trace: --gold or --predictions FILE');
  const workers = positiveInt(values.workers, '--workers') ?? 1;
  if (workers < 1) throw new UsageError('--workers is at least 1');
  const timeoutS = positiveInt(values.timeout, '--timeout');
  if (!values['emit-k8s'] && (values['image-template'] || values['pod-python'] || values['results-claim']))
    throw new UsageError('--image-template, --pod-python and --results-claim go with --emit-k8s DIR');
  const {db, path: dbPath} = await openStore(values.db, 'create');
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) process.exit(signal === 'SIGINT' ? 130 : 143);
    warn(`deltalens: ${signal}: stopping; every pair that finished is kept (again to quit at once)`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    let choices: BatchChoice[];
    try {
      const instances = importInstances(db, values.instances);
      if (values.gold) choices = instances.instances.map(i => ({instance: i.id, gold: true}));
      else {
        const predictions = importInstances(db, values.predictions!);
        choices = predictions.predictions.map(p => ({instance: p.instance, prediction: p.model}));
      }
    } catch (error) {
      if (error instanceof RecordError) {
        warn(`deltalens: ${error.message}; nothing of the file was imported`);
        return EXIT.failed;
      }
      throw error;
    }
    const json = Boolean(values.json);
    if (values['emit-k8s']) {
      const emitted = await emitK8s(db, {
        choices,
        repoDir: values['repo-dir'],
        out: values['emit-k8s'],
        allTests: values['all-tests'],
        python: values.python ?? process.env.DELTALENS_PYTHON ?? 'python3',
        sandbox: values['no-sandbox'] ? 'off' : 'require',
        imageTemplate: values['image-template'],
        podPython: values['pod-python'],
        resultsClaim: values['results-claim'],
        timeoutS,
        onJob: line => {
          if (!json) warn(cell(line));
        },
      });
      if (json) printJson({jobs: emitted.jobs, failed: emitted.failed, manifest: emitted.manifest});
      else {
        for (const f of emitted.failed) say(`  not emitted: ${cell(f.instance)}: ${cell(f.error)}`);
        say(
          `${emitted.jobs.length} job(s) written to ${emitted.manifest} (see README.txt beside it): kubectl apply -f ${emitted.manifest}; then deltalens traces import --results RESULTS_DIR`,
        );
      }
      return emitted.failed.length ? EXIT.failed : EXIT.ok;
    }
    const result = await batchTrace(db, {
      choices,
      repoDir: values['repo-dir'],
      workers,
      allTests: values['all-tests'],
      retryIncomplete: values['retry-incomplete'],
      signal: controller.signal,
      pair: {
        python: values.python ?? process.env.DELTALENS_PYTHON ?? 'python3',
        sandbox: values['no-sandbox'] ? 'off' : 'require',
        onWarning: message => warn(`deltalens: warning: ${message}`),
        ...(timeoutS ? {limits: {timeoutS}} : {}),
      },
      onJob: (done, total, job) => {
        if ('started' in job) {
          if (!json) warn(`[${done}/${total}] tracing ${cell(job.instance)} · ${cell(job.patch)}…`);
          return;
        }
        if (json) {
          warn(
            JSON.stringify({
              progress: {done, total, instance: job.instance, status: job.status, seconds: round2(job.seconds)},
            }),
          );
          return;
        }
        const what =
          job.status === 'failed'
            ? `failed: ${job.error}`
            : job.status === 'skipped'
              ? `already traced (pair #${job.pair})`
              : job.delta?.status === 'found'
                ? `${job.delta.kind} delta in ${job.delta.function} (${job.seconds.toFixed(1)} s)`
                : `${job.delta?.status} (${job.seconds.toFixed(1)} s)`;
        warn(`[${done}/${total}] ${cell(job.instance)} · ${cell(job.patch)}: ${cell(what)}`);
      },
    });
    if (json)
      printJson({
        jobs: result.jobs.map(j => ({...j, seconds: round2(j.seconds)})),
        traced: result.traced,
        incomplete: result.incomplete,
        skipped: result.skipped,
        failed: result.failed,
        seconds: Number(result.seconds.toFixed(1)),
        pairs_per_hour: result.pairsPerHour === null ? null : Math.round(result.pairsPerHour),
        workers: result.workers,
        interrupted: result.interrupted,
        db: dbPath,
      });
    else {
      for (const line of table(result.jobs)) say(line);
      say(
        `${result.traced} traced (${result.incomplete} incomplete), ${result.skipped} already traced, ${result.failed} failed in ${result.seconds.toFixed(0)} s with ${workers} worker(s)${result.pairsPerHour ? ` (${Math.round(result.pairsPerHour)} pairs/hour)` : ''}${result.interrupted ? '; interrupted: run it again to go on' : ''}; stored in ${dbPath}`,
      );
    }
    return result.failed || result.incomplete || result.interrupted ? EXIT.failed : EXIT.ok;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    db.close();
  }
}
