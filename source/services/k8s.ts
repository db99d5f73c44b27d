/**
 * `deltalens batch trace --emit-k8s DIR`: the same instances as a batch trace, written as
 * Kubernetes objects to run in a cluster — a pod per instance in the instance's own image (a
 * SWE-bench evaluation image, whose /testbed holds the repository at the base commit), running
 * only the tracer (`python -m deltatrace pod`, mounted read-only) with the image's interpreter,
 * no network, its trace files written to a shared volume. `deltalens traces import --results`
 * then stores each instance's files as a pair with its delta, here.
 *
 * What is decided here, where deltalens is: each instance's tests and how they run, the patch,
 * and the focus (the functions the patch changes, found in the two trees made from the clone, in
 * the sandbox) and the line mapping the delta needs. The pods record values everywhere: the
 * planning of where values are needed is deltalens' own and does not run in the image.
 */
import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {focusPlan, focusTargets} from '../core/trace/focus.js';
import type {Db} from '../store/db.js';
import {planChoice, type BatchChoice} from './batch-trace.js';
import {pythonRunner, TRACER_DIR} from './python.js';
import type {SandboxPolicy} from './sandbox.js';
import {changesBetween, DEFAULT_LIMITS} from './tracing.js';
import {prepareWorkspace} from './workspace.js';

/** SWE-bench's public evaluation images: `__` in the instance id is written `_1776_`. */
export const IMAGE_TEMPLATE = 'docker.io/swebench/sweb.eval.x86_64.{id_1776}:latest';
/** The interpreter of the testbed environment in SWE-bench's images. */
const POD_PYTHON = '/opt/miniconda3/envs/testbed/bin/python';
const LABEL = 'deltalens-trace';

interface EmitOptions {
  choices: BatchChoice[];
  repoDir: string;
  out: string;
  allTests?: boolean;
  python: string;
  sandbox: SandboxPolicy;
  imageTemplate?: string;
  podPython?: string;
  /** the PersistentVolumeClaim the pods write their results to */
  resultsClaim?: string;
  timeoutS?: number;
  onJob?: (line: string) => void;
}

interface Emitted {
  jobs: {index: number; instance: string; test: string; image: string; file: string}[];
  failed: {instance: string; error: string}[];
  manifest: string;
}

function imageFor(template: string, instance: string): string {
  return template
    .replaceAll('{id}', instance)
    .replaceAll('{id_1776}', instance.replaceAll('__', '_1776_'))
    .toLowerCase();
}

/** Kubernetes names: lower case, digits and '-', at most 63 characters. */
function k8sName(prefix: string, index: number, instance: string): string {
  const slug = instance
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `${prefix}-${index}-${slug}`.slice(0, 63).replace(/-$/, '');
}

/** The tracer's files as a ConfigMap, mounted as a package folder (keys cannot hold '/'). */
function tracerConfigMap(): {map: object; items: {key: string; path: string}[]} {
  const pkg = join(TRACER_DIR, 'deltatrace');
  const data: Record<string, string> = {};
  const items: {key: string; path: string}[] = [];
  for (const file of readdirSync(pkg)
    .filter(f => f.endsWith('.py'))
    .sort()) {
    data[file] = readFileSync(join(pkg, file), 'utf8');
    items.push({key: file, path: `deltatrace/${file}`});
  }
  return {
    map: {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'deltalens-tracer', labels: {app: LABEL}}, data},
    items,
  };
}

export async function emitK8s(db: Db, o: EmitOptions): Promise<Emitted> {
  const template = o.imageTemplate ?? IMAGE_TEMPLATE;
  const runner = await pythonRunner(o.python, o.sandbox);
  mkdirSync(join(o.out, 'jobs'), {recursive: true});
  const tracer = tracerConfigMap();
  const objects: object[] = [
    tracer.map,
    {
      // no traffic in or out of the pods
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: {name: 'deltalens-trace-no-network', labels: {app: LABEL}},
      spec: {podSelector: {matchLabels: {app: LABEL}}, policyTypes: ['Ingress', 'Egress']},
    },
  ];
  const emitted: Emitted = {jobs: [], failed: [], manifest: join(o.out, 'k8s.json')};
  let index = 0;
  for (const choice of o.choices) {
    const planned = await planChoice(db, choice, o.repoDir, o.allTests);
    if ('error' in planned) {
      emitted.failed.push({instance: choice.instance, error: planned.error});
      continue;
    }
    const {plan} = planned;
    // the focus and the line mapping, from the two trees as the pods will make them
    let changes: Awaited<ReturnType<typeof changesBetween>>;
    const ws = await prepareWorkspace(plan.spec, runner).catch((error: Error) => error);
    if (ws instanceof Error) {
      emitted.failed.push({instance: choice.instance, error: ws.message});
      continue;
    }
    try {
      changes = await changesBetween(runner, ws.buggy, ws.patched);
    } finally {
      ws.cleanup();
    }
    const focus = focusTargets(focusPlan(changes.changes));
    const image = imageFor(template, choice.instance);
    for (const test of plan.tests) {
      const name = k8sName('deltalens', index, choice.instance);
      const job = {
        instance: choice.instance,
        label: plan.label,
        test: test.target,
        test_id: test.id,
        mode: test.mode ?? null,
        test_patch: plan.spec.testPatch,
        patch: plan.spec.patch,
        focus,
        seed: 0,
        timeout: Math.max(1, (o.timeoutS ?? DEFAULT_LIMITS.timeoutS) - 5),
        max_events: DEFAULT_LIMITS.maxEvents,
        changes: changes.changes,
        diff: changes.diff,
        image,
      };
      const file = join(o.out, 'jobs', `${name}.json`);
      writeFileSync(file, JSON.stringify(job, null, 1));
      objects.push({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {name: `${name}-job`, labels: {app: LABEL}},
        data: {'job.json': JSON.stringify(job)},
      });
      objects.push({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {name, labels: {app: LABEL, 'deltalens/instance-index': String(index)}},
        spec: {
          backoffLimit: 0,
          activeDeadlineSeconds: 4 * (o.timeoutS ?? DEFAULT_LIMITS.timeoutS) + 300,
          ttlSecondsAfterFinished: 86_400,
          template: {
            metadata: {labels: {app: LABEL}},
            spec: {
              restartPolicy: 'Never',
              automountServiceAccountToken: false,
              enableServiceLinks: false,
              containers: [
                {
                  name: 'trace',
                  image,
                  command: [
                    o.podPython ?? POD_PYTHON,
                    '-m',
                    'deltatrace',
                    'pod',
                    '--job',
                    '/deltalens/job/job.json',
                    '--testbed',
                    '/testbed',
                    '--out',
                    `/results/${name}`,
                  ],
                  env: [{name: 'PYTHONPATH', value: '/deltalens/tracer'}],
                  resources: {requests: {cpu: '1', memory: '2Gi'}, limits: {memory: '8Gi'}},
                  securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: ['ALL']}},
                  volumeMounts: [
                    {name: 'tracer', mountPath: '/deltalens/tracer', readOnly: true},
                    {name: 'job', mountPath: '/deltalens/job', readOnly: true},
                    {name: 'results', mountPath: '/results'},
                  ],
                },
              ],
              volumes: [
                {name: 'tracer', configMap: {name: 'deltalens-tracer', items: tracer.items}},
                {name: 'job', configMap: {name: `${name}-job`}},
                {name: 'results', persistentVolumeClaim: {claimName: o.resultsClaim ?? 'deltalens-results'}},
              ],
            },
          },
        },
      });
      emitted.jobs.push({index, instance: choice.instance, test: test.id, image, file});
      o.onJob?.(`${name}: ${choice.instance} · ${test.id} · ${image}`);
      index += 1;
    }
  }
  writeFileSync(emitted.manifest, JSON.stringify({apiVersion: 'v1', kind: 'List', items: objects}, null, 1));
  writeFileSync(
    join(o.out, 'README.txt'),
    [
      `deltalens batch trace --emit-k8s: ${emitted.jobs.length} job(s).`,
      '',
      `1. A PersistentVolumeClaim named ${o.resultsClaim ?? 'deltalens-results'} (ReadWriteMany) for the results.`,
      '2. kubectl apply -f k8s.json   (the tracer ConfigMap, a no-network policy, a Job per instance)',
      `3. kubectl wait --for=condition=complete job -l app=${LABEL} --timeout=24h`,
      "4. Copy the volume's folders here (one per job: four trace files, job.json, result.json), then:",
      '   deltalens traces import --results RESULTS_DIR',
      '',
      'The same entry point runs here, on a checkout at the base commit:',
      '   PYTHONPATH=<deltalens>/tracer python -m deltatrace pod --job jobs/NAME.json --testbed CHECKOUT --out RESULTS_DIR/NAME',
      '',
    ].join('\n'),
  );
  return emitted;
}
