import {append} from '../core/arrays.js';
import {createHash, randomUUID} from 'node:crypto';
import {existsSync, readdirSync, statSync} from 'node:fs';
import {basename, dirname, extname, join, resolve} from 'node:path';
import {describeShape, detectDocument, type DocumentKind} from '../core/trajectory/detect.js';
import {GenericJsonlReader, type TrajectoryHeader} from '../core/trajectory/generic-jsonl.js';
import {UsageError} from '../core/errors.js';
import {FormatError, type SourceFormat, type Step, type Trajectory} from '../core/trajectory/model.js';
import {parseOpenHands} from '../core/trajectory/openhands.js';
import {formatNamed, TRAJECTORY_FORMATS} from '../core/trajectory/formats.js';
import {instanceRecordFrom} from '../core/trajectory/swe-bench-instance.js';
import {checkRanges, type FieldWarning} from '../core/trajectory/ranges.js';
import {ensureAgent} from '../store/agents.js';
import {streamTx, writeTx, type Db} from '../store/db.js';
import {streamingLabels} from '../store/lens.js';
import {ensureInstance, problemStatement, upsertInstance} from '../store/instances.js';
import {reasoningTagger} from '../store/reasoning.js';
import {
  finishTrajectory,
  getTrajectory,
  hasContentHash,
  insertTrajectory,
  setContentHash,
  stepWriter,
} from '../store/trajectories.js';
import {ResolutionFinder} from './resolution-finder.js';
import {parseJson, readLines, readUtf8File} from './text-file.js';

export const IMPORT_FORMATS = ['auto', ...TRAJECTORY_FORMATS.map(f => f.name)] as const;
type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportOptions {
  format: ImportFormat;
  agent?: string;
  model?: string;
  results?: string[];
  /** Whole JSON documents larger than this are refused (they are parsed in memory). */
  maxBytes: number;
  /**
   * A run byte-identical to one stored under another agent (configuration): 'first' (the
   * default) keeps it under the first only and says so; 'both' stores it under each.
   */
  identical?: 'first' | 'both';
  onProgress?: (done: number, total: number, path: string) => void;
}

interface AddedTrajectory {
  path: string;
  locator: string | null;
  id: number;
  instance: string;
  agent: string;
  model: string;
  format: SourceFormat;
  steps: number;
  resolved: boolean | null;
  resolvedSource: string | null;
  explanationChars: number;
  patchChars: number;
}

export interface ImportReport {
  added: AddedTrajectory[];
  instances: {path: string; instance: string; status: 'added' | 'updated' | 'unchanged'}[];
  skipped: {path: string; locator: string | null; reason: string; existing?: number}[];
  failed: {path: string; error: string; line?: number; column?: number; jsonPath?: string}[];
  /** imported, but a field was out of range or something was left out: one per field */
  warnings: {path: string; locator: string | null; id: number; field: string; message: string}[];
}

interface Candidate {
  path: string;
  explicit: boolean;
  runRoot: string | null;
}

const TRAJECTORY_EXTENSIONS = new Set(['.json', '.jsonl', '.traj']);

export function importPaths(db: Db, paths: string[], options: ImportOptions): ImportReport {
  const report: ImportReport = {added: [], instances: [], skipped: [], failed: [], warnings: []};
  const finder = new ResolutionFinder((options.results ?? []).map(file => resolve(file)));
  const candidates = paths.flatMap(path => expand(resolve(path), options.format));
  candidates.forEach((candidate, index) => {
    options.onProgress?.(index, candidates.length, candidate.path);
    try {
      importFile(db, candidate, options, finder, report);
    } catch (error) {
      report.failed.push(failure(candidate.path, error));
    }
  });
  options.onProgress?.(candidates.length, candidates.length, '');
  return report;
}

function failure(path: string, error: unknown): ImportReport['failed'][number] {
  if (error instanceof FormatError) {
    return {
      path,
      error: error.describe(),
      line: error.where.line,
      column: error.where.column,
      jsonPath: error.where.path,
    };
  }
  return {path, error: (error as Error).message};
}

/** Files to look at under one command-line path. A SWE-bench/experiments run folder is one unit. */
function expand(path: string, format: ImportFormat): Candidate[] {
  if (!existsSync(path)) throw new UsageError(`${path}: no such file or directory`);
  if (!statSync(path).isDirectory()) {
    if (format === 'swe-bench-run')
      throw new UsageError(`${path}: --format swe-bench-run takes a run folder (with trajs/ inside)`);
    return [{path, explicit: true, runRoot: null}];
  }
  if (isRunFolder(path)) return walk(join(path, 'trajs')).map(file => ({path: file, explicit: false, runRoot: path}));
  if (format === 'swe-bench-run') throw new UsageError(`${path}: not a SWE-bench run folder (no trajs/ folder inside)`);
  const out: Candidate[] = [];
  const enter = (dir: string): boolean => {
    if (!isRunFolder(dir)) return true;
    append(out, expand(dir, 'auto'));
    return false;
  };
  for (const file of walk(path, enter)) {
    out.push({path: file, explicit: false, runRoot: null});
  }
  return out;
}

function isRunFolder(dir: string): boolean {
  return existsSync(join(dir, 'trajs')) && statSync(join(dir, 'trajs')).isDirectory();
}

function walk(dir: string, enter: (dir: string) => boolean = () => true): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, {withFileTypes: true}).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (enter(full)) append(files, walk(full, enter));
    } else if (entry.isFile()) {
      files.push(full);
    }
  }
  return files;
}

const EXPLAINBENCH_PATH =
  /(^|\/)(dataset\/(context|ground_truths|extract_ground_truths)|results\/(generation|evaluation))\//;

function importFile(
  db: Db,
  candidate: Candidate,
  options: ImportOptions,
  finder: ResolutionFinder,
  report: ImportReport,
): void {
  const {path} = candidate;
  const extension = extname(path);
  if (!TRAJECTORY_EXTENSIONS.has(extension)) {
    if (candidate.explicit)
      throw new FormatError(
        `not a trajectory file (expected .traj, .json or .jsonl, found "${extension || 'no extension'}")`,
      );
    report.skipped.push({path, locator: null, reason: `not a trajectory file (${extension || 'no extension'})`});
    return;
  }
  if (!candidate.explicit && EXPLAINBENCH_PATH.test(path.split('\\').join('/'))) {
    report.skipped.push({path, locator: null, reason: 'ExplainBench question data, not a trajectory'});
    return;
  }
  if (extension === '.jsonl') {
    importJsonl(db, candidate, options, finder, report);
    return;
  }
  const size = statSync(path).size;
  if (size > options.maxBytes) {
    throw new FormatError(
      `file is ${megabytes(size)}, over the ${megabytes(options.maxBytes)} limit for JSON documents, which are parsed whole ` +
        '(raise --max-size, or convert it to the streamed JSONL format)',
    );
  }
  const {text, bytes} = readUtf8File(path);
  const hash = sha256(bytes);
  const doc = parseJson(text);
  const detected = detectDocument(doc);
  const kind = chooseKind(detected, options.format, candidate, doc);
  if (kind === 'resolution') {
    report.skipped.push({
      path,
      locator: null,
      reason: 'results file: gives resolved status to the trajectories beside it',
    });
    return;
  }
  if (kind === 'swe-bench-instance') {
    const record = instanceRecordFrom(doc, '$');
    report.instances.push({
      path,
      instance: record.id,
      status: writeTx(db, () => upsertInstance(db, {...record, sourcePath: path})),
    });
    return;
  }
  if (kind === null) {
    report.skipped.push({path, locator: null, reason: `not a trajectory (${describeShape(doc)})`});
    return;
  }
  const trajectory = withHint(detected, kind, () => parseDocument(kind, doc, path, candidate.runRoot));
  const stored = writeTx(db, () =>
    storeTrajectory(db, trajectory, {path, locator: null, hash, candidate, options, finder, report}),
  );
  if ('id' in stored) report.added.push(stored);
  else report.skipped.push({path, locator: null, reason: stored.reason, existing: stored.existing});
}

function chooseKind(
  detected: DocumentKind,
  format: ImportFormat,
  candidate: Candidate,
  doc: unknown,
): DocumentKind | null {
  if (format !== 'auto' && format !== 'swe-bench-run') return format;
  if (detected === 'unknown' || detected === 'explainbench') {
    if (candidate.explicit) {
      throw new FormatError(
        `unrecognised format: ${describeShape(doc)}; expected a SWE-agent .traj, a mini-SWE-agent .traj.json, ` +
          'an OpenHands history or output record, a SWE-bench instance or results file (or pass --format)',
      );
    }
    return null;
  }
  return detected;
}

function withHint<T>(detected: DocumentKind, chosen: DocumentKind, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof FormatError && detected !== chosen && detected !== 'unknown') {
      error.message += ` (this file looks like ${detected}, not ${chosen}; try --format auto)`;
    }
    throw error;
  }
}

function parseDocument(kind: DocumentKind, doc: unknown, path: string, runRoot: string | null): Trajectory {
  const format = formatNamed(kind);
  if (!format) throw new FormatError(`not a trajectory: ${kind}`);
  if (!format.parse) {
    throw new FormatError(
      kind === 'jsonl'
        ? 'the generic format is line-based: give the file a .jsonl extension'
        : `${kind} is not read from one file`,
    );
  }
  const fallbackInstance = basename(path).replace(/(\.traj)?(\.jsonl?)?$/, '');
  return format.parse(doc, {fallbackInstance, folder: basename(runRoot ?? dirname(path))});
}

interface StoreContext {
  path: string;
  locator: string | null;
  hash: string;
  candidate: Candidate;
  options: ImportOptions;
  finder: ResolutionFinder;
  report: ImportReport;
}

/** The warnings of a stored trajectory: fields out of range, what its importer left out, no steps. */
function warnAbout(
  context: StoreContext,
  id: number,
  warnings: FieldWarning[],
  notes: FieldWarning[] | undefined,
  steps: number,
): void {
  const all = [...warnings, ...(notes ?? [])];
  if (steps === 0) all.push({field: 'steps', message: 'no step was read from it: the run is stored without steps'});
  for (const w of all) context.report.warnings.push({path: context.path, locator: context.locator, id, ...w});
}

/**
 * Whether a run whose content hashes to `hash` is stored already, for the agent it would be
 * stored under: the same bytes under the same agent are imported already; under another agent
 * (the same run in two configurations' folders) it is kept under the first only — and the
 * reason says which and what it does to the second — unless `identical: 'both'`, which stores it
 * under each (its hash then names the agent, so a re-import stays idempotent).
 */
function identical(
  db: Db,
  hash: string,
  agent: string,
  options: ImportOptions,
): {store: string} | {existing: number; reason: string} {
  const first = hasContentHash(db, hash);
  if (first === null) return {store: hash};
  const again = hasContentHash(db, `${hash}:${agent}`);
  if (again !== null) return {existing: again, reason: 'already imported (same content)'};
  const firstAgent = getTrajectory(db, first)?.agent ?? '?';
  if (firstAgent === agent) return {existing: first, reason: 'already imported (same content)'};
  if (options.identical === 'both') return {store: `${hash}:${agent}`};
  return {
    existing: first,
    reason: `byte-identical to run #${first} of ${firstAgent}: not imported again as ${agent}, which has one run fewer (import with --identical both to count it under both)`,
  };
}

/** Inserts one parsed trajectory, or returns the id of the one with the same content and why it was not stored. */
function storeTrajectory(
  db: Db,
  trajectory: Trajectory,
  context: StoreContext,
): AddedTrajectory | {existing: number; reason: string} {
  const decided = identical(db, context.hash, agentOf(trajectory, context), context.options);
  if (!('store' in decided)) return decided;
  context = {...context, hash: decided.store};
  const {header, agentId, resolvedSource, warnings} = resolveHeader(db, trajectory, context);
  const id = insertTrajectory(db, {
    header,
    agentId,
    sourcePath: context.path,
    sourceLocator: context.locator,
    contentHash: context.hash,
    resolvedSource,
  });
  const write = stepWriter(
    db,
    id,
    streamingLabels(header.format),
    reasoningTagger(db, id, problemStatement(db, header.instance)),
  );
  let count = 0;
  for (const step of trajectory.steps) count = write(step);
  finishTrajectory(db, id, {nSteps: count, explanation: header.explanation, header, agentId, resolvedSource});
  warnAbout(context, id, warnings, trajectory.notes, count);
  return added(id, header, context, count, resolvedSource);
}

/** The agent (configuration) a run is stored under: --agent, else its run folder's name, else its own. */
function agentOf(given: TrajectoryHeader, context: StoreContext): string {
  const found = context.finder.find(context.path, given.instance, context.candidate.runRoot);
  const runName = context.candidate.runRoot ? basename(context.candidate.runRoot) : (found?.run ?? null);
  return context.options.agent ?? runName ?? given.agent;
}

function resolveHeader(db: Db, given: TrajectoryHeader, context: StoreContext) {
  const {header, warnings} = checkRanges(given);
  const found = context.finder.find(context.path, header.instance, context.candidate.runRoot);
  const resolved = found && (found.explicit || header.resolved === null) ? found.resolved : header.resolved;
  const resolvedSource =
    found && (found.explicit || header.resolved === null)
      ? found.source
      : header.resolved === null
        ? null
        : context.path;
  const runName = context.candidate.runRoot ? basename(context.candidate.runRoot) : (found?.run ?? null);
  const agent = agentOf(given, context);
  const model = context.options.model ?? header.model;
  const meta = runName && agent === runName ? {...header.meta, tool: header.agent} : header.meta;
  ensureInstance(db, header.instance);
  const agentId = ensureAgent(db, agent, model);
  return {header: {...header, agent, model, resolved, meta}, agentId, resolvedSource, warnings};
}

function added(
  id: number,
  header: TrajectoryHeader,
  context: StoreContext,
  steps: number,
  resolvedSource: string | null,
): AddedTrajectory {
  return {
    path: context.path,
    locator: context.locator,
    id,
    instance: header.instance,
    agent: header.agent,
    model: header.model,
    format: header.format,
    steps,
    resolved: header.resolved,
    resolvedSource,
    explanationChars: header.explanation === null ? 0 : [...header.explanation].length,
    patchChars: header.patch?.length ?? 0,
  };
}

/** JSONL: our generic format, OpenHands `output.jsonl` or SWE-bench instances, read line by line. */
function importJsonl(
  db: Db,
  candidate: Candidate,
  options: ImportOptions,
  finder: ResolutionFinder,
  report: ImportReport,
): void {
  const {path} = candidate;
  const lines = readLines(path, options.maxBytes);
  let first = lines.next();
  while (!first.done && first.value.text.trim() === '') first = lines.next();
  if (first.done) throw new FormatError('file is empty');
  const firstValue = parseJson(first.value.text, first.value.line - 1);
  const detected = detectDocument(firstValue);
  const kind = options.format === 'auto' || options.format === 'swe-bench-run' ? detected : options.format;

  function* all() {
    yield {...first.value!, value: firstValue};
    for (const line of lines) if (line.text.trim() !== '') yield {...line, value: parseJson(line.text, line.line - 1)};
  }

  // Each trajectory (and each instance record) commits on its own, so a concurrent writer
  // waits for one record, never for a whole file; a bad line keeps what came before it.
  if (kind === 'jsonl') {
    streamGeneric(db, all(), {candidate, options, finder}, report);
  } else if (kind === 'openhands' || kind === 'swe-bench-instance') {
    for (const {value, line, bytes} of all()) {
      const locator = `line ${line}`;
      if (kind === 'swe-bench-instance') {
        const record = withLine(line, () => instanceRecordFrom(value, '$'));
        report.instances.push({
          path,
          instance: record.id,
          status: writeTx(db, () => upsertInstance(db, {...record, sourcePath: path})),
        });
        continue;
      }
      const trajectory = withLine(line, () =>
        withHint(detectDocument(value), 'openhands', () => parseOpenHands(value, `${basename(path)}:${line}`)),
      );
      const hash = sha256(bytes);
      const stored = writeTx(db, () =>
        storeTrajectory(db, trajectory, {path, locator, hash, candidate, options, finder, report}),
      );
      if ('id' in stored) report.added.push(stored);
      else report.skipped.push({path, locator, reason: stored.reason, existing: stored.existing});
    }
  } else if (!candidate.explicit) {
    report.skipped.push({path, locator: null, reason: `not a trajectory (JSONL of ${describeShape(firstValue)})`});
  } else {
    throw new FormatError(
      `unrecognised JSONL: the first record is ${describeShape(firstValue)}; expected {"type": "trajectory", …} ` +
        '(deltalens generic format), an OpenHands output.jsonl record or SWE-bench instances',
      {line: first.value!.line},
    );
  }
}

function withLine<T>(line: number, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof FormatError && error.where.line === undefined)
      throw new FormatError(error.message, {...error.where, line});
    throw error;
  }
}

function streamGeneric(
  db: Db,
  records: Iterable<{value: unknown; line: number; bytes: Buffer}>,
  context: {candidate: Candidate; options: ImportOptions; finder: ResolutionFinder},
  report: ImportReport,
): void {
  const path = context.candidate.path;
  const reader = new GenericJsonlReader();
  type Open = {
    id: number;
    write: (step: Step) => number;
    count: number;
    hash: ReturnType<typeof createHash>;
    startLine: number;
  };
  let open = null as Open | null;

  const handle = (events: ReturnType<GenericJsonlReader['push']>) => {
    for (const event of events) {
      if (event.kind === 'start') {
        streamTx.begin(db);
        const placeholder = `pending:${randomUUID()}`;
        const {header, agentId} = resolveHeader(db, event.header, {
          path,
          locator: null,
          hash: placeholder,
          ...context,
          report,
        });
        const id = insertTrajectory(db, {
          header,
          agentId,
          sourcePath: path,
          sourceLocator: null,
          contentHash: placeholder,
          resolvedSource: null,
        });
        open = {
          id,
          write: stepWriter(
            db,
            id,
            streamingLabels(header.format),
            reasoningTagger(db, id, problemStatement(db, header.instance)),
          ),
          count: 0,
          hash: createHash('sha256'),
          startLine: event.line,
        };
      } else if (event.kind === 'step') {
        open!.count = open!.write(event.step);
      } else {
        const current = open!;
        open = null;
        const locator = `lines ${current.startLine}-${event.line}`;
        const decided = identical(
          db,
          current.hash.digest('hex'),
          agentOf(event.header, {path, locator, hash: '', ...context, report}),
          context.options,
        );
        if (!('store' in decided)) {
          streamTx.rollback(db);
          report.skipped.push({path, locator, reason: decided.reason, existing: decided.existing});
          continue;
        }
        const hash = decided.store;
        const storeContext = {path, locator, hash, ...context, report};
        const {header, agentId, resolvedSource, warnings} = resolveHeader(db, event.header, storeContext);
        setContentHash(db, current.id, hash, locator);
        finishTrajectory(db, current.id, {
          nSteps: current.count,
          explanation: header.explanation,
          header,
          agentId,
          resolvedSource,
        });
        streamTx.commit(db);
        warnAbout(storeContext, current.id, warnings, event.header.notes, current.count);
        report.added.push(added(current.id, header, storeContext, current.count, resolvedSource));
      }
    }
  };

  try {
    let lastLine = 0;
    for (const record of records) {
      lastLine = record.line;
      const events = reader.push(record.value, record.line);
      // A header line belongs to the trajectory it starts; hash it after closing the previous one.
      const starts = events.some(event => event.kind === 'start');
      if (!starts) open?.hash.update(record.bytes).update('\n');
      handle(events);
      if (starts) open!.hash.update(record.bytes).update('\n');
    }
    handle(reader.close(lastLine));
  } catch (error) {
    // the trajectory being read is dropped whole; the ones before it are stored
    streamTx.rollback(db);
    throw error;
  }
}

export function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * A SWE-bench harness prediction as a run without steps: its instance, the model as the agent,
 * the patch. Inside the caller's transaction; `already` when the same row was imported before.
 */
export function storePrediction(
  db: Db,
  p: {instance: string; model: string; patch: string; record: unknown},
  where: {path: string; locator: string},
): {id: number} | {existing: number} {
  const trajectory: Trajectory = {
    instance: p.instance,
    agent: p.model,
    model: p.model,
    format: 'prediction',
    steps: [],
    explanation: null,
    patch: p.patch || null,
    exitStatus: p.patch ? 'submitted' : 'no patch',
    resolved: null,
    cost: null,
    tokensIn: null,
    tokensOut: null,
    meta: {prediction: p.record},
  };
  const report: ImportReport = {added: [], instances: [], skipped: [], failed: [], warnings: []};
  const hash = sha256(JSON.stringify(['prediction', p.instance, p.model, p.patch]));
  const stored = storeTrajectory(db, trajectory, {
    path: where.path,
    locator: where.locator,
    hash,
    candidate: {path: where.path, explicit: true, runRoot: null},
    options: {format: 'auto', maxBytes: Number.MAX_SAFE_INTEGER},
    finder: new ResolutionFinder([]),
    report,
  });
  return 'id' in stored ? {id: stored.id} : stored;
}
