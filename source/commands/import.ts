import {fit} from '../core/text/sanitize.js';
import {cell, say, warn} from './output.js';
import {openStore} from './db-path.js';
import {relative} from 'node:path';
import {IMPORT_FORMATS, importPaths, type ImportReport} from '../services/importer.js';
import {TRAJECTORY_FORMATS} from '../core/trajectory/formats.js';
import {ExplainBenchError, importExplainBench} from '../services/explainbench.js';
import {COMMON_OPTIONS, EXIT, oneOf, parse, printJson, UsageError} from './args.js';

export const IMPORT_HELP = `Usage: deltalens import PATH... [options]

Import agent trajectories (files or folders, searched recursively) into the store.

Options:
  --format F        auto (default: each file's format detected), or one of
${TRAJECTORY_FORMATS.map(f => `                      ${f.name.padEnd(16)} ${f.summary}`).join('\n')}
                      explainbench     a checkout of the ExplainBench replication data: questions,
                                       keys, recorded QA answers per agent and sample, published statistics
  --results FILE    resolved status from a SWE-bench harness summary (resolved_ids/unresolved_ids),
                    a report.json or a results.json; overrides what files say (repeatable)
  --agent NAME      agent name for every imported trajectory (e.g. one folder per run configuration)
  --model NAME      model name for every imported trajectory
  --max-size MB     refuse JSON documents larger than this; JSONL lines likewise (default 100)
  --identical WHICH a run byte-identical to one imported under another agent (the same run in
                    two configurations' folders): first (default) keeps it under the first only
                    and says which agent has one run fewer; both imports it under each
  --db FILE         database (default ./deltalens.db, created when missing)
  --json            print the report as JSON
  -h, --help        show this help

Resolved status is also read from files beside the trajectories: <id>.report.json, a harness
summary or results.json in the same folder or the one above, and logs/<id>/report.json of a
SWE-bench/experiments run folder. Re-importing the same content changes nothing.
A run is imported with a warning per field (on stderr; "warnings" in --json) when a token count
or cost is out of range (not stored), when its file held messages the importer does not read,
or when no step could be read from it.
Exit codes: 0 all imported or skipped, 1 a file failed (others still imported), 2 usage error.`;

export async function runImport(argv: string[]): Promise<number> {
  const {values, positionals} = parse(argv, {
    ...COMMON_OPTIONS,
    format: {type: 'string'},
    results: {type: 'string', multiple: true},
    agent: {type: 'string'},
    model: {type: 'string'},
    'max-size': {type: 'string'},
    identical: {type: 'string'},
  });
  if (values.help) {
    say(IMPORT_HELP);
    return EXIT.ok;
  }
  if (positionals.length === 0) throw new UsageError('import needs at least one PATH');
  if (values.format === 'explainbench') return runExplainBench(positionals, values.db, Boolean(values.json));
  const format =
    (oneOf(values.format, [...IMPORT_FORMATS, 'explainbench'] as const, '--format') as
      | (typeof IMPORT_FORMATS)[number]
      | undefined) ?? 'auto';
  const identical = oneOf(values.identical, ['first', 'both'] as const, '--identical') ?? 'first';
  const maxMb = values['max-size'] === undefined ? 100 : Number(values['max-size']);
  if (!(maxMb > 0))
    throw new UsageError(`--max-size takes a positive number of megabytes (got "${values['max-size']}")`);

  const {db, path: dbPath} = await openStore(values.db, 'create');
  const progress = process.stderr.isTTY ? progressLine() : undefined;
  let report: ImportReport;
  try {
    report = importPaths(db, positionals, {
      format,
      agent: values.agent,
      model: values.model,
      results: values.results,
      maxBytes: maxMb * 1024 * 1024,
      identical,
      onProgress: progress,
    });
  } finally {
    db.close();
  }
  if (values.json) printJson(toJson(report, dbPath));
  else printHuman(report, dbPath);
  return report.failed.length ? EXIT.failed : EXIT.ok;
}

async function runExplainBench(dirs: string[], dbFlag: string | undefined, json: boolean): Promise<number> {
  const {db, path: dbPath} = await openStore(dbFlag, 'create');
  try {
    const reports = [];
    for (const dir of dirs) {
      try {
        reports.push({dir, ...importExplainBench(db, dir)});
      } catch (error) {
        if (error instanceof ExplainBenchError) {
          warn(`deltalens: ${error.message} (nothing from ${dir} was imported)`);
          return EXIT.failed;
        }
        throw error;
      }
    }
    if (json) printJson({db: dbPath, explainbench: reports});
    else {
      for (const r of reports) {
        const q = Object.entries(r.questions)
          .map(([t, n]) => `${n} ${t}`)
          .join(', ');
        say(
          `${relativePath(r.dir)}: questions ${q}; ${r.explanations} explanations (texts not in the data); ${r.answers} recorded answers (${r.answersNew} new, ${r.unparseable} unparseable, counted wrong); ${r.published} published statistics → ${relativePath(dbPath)}`,
        );
        for (const s of r.skipped) say(`  skipped: ${s}`);
      }
    }
    return EXIT.ok;
  } finally {
    db.close();
  }
}

function progressLine() {
  let last = 0;
  return (done: number, total: number, path: string) => {
    const now = Date.now();
    if (done < total && now - last < 100) return;
    last = now;
    const line = done < total ? `importing ${done + 1}/${total} ${relativePath(path)}` : '';
    process.stderr.write(`\r\x1b[K${fit(cell(line), (process.stderr.columns ?? 80) - 1)}`);
  };
}

export function toJson(report: ImportReport, db: string) {
  return {
    db,
    added: report.added.map(a => ({
      id: a.id,
      path: a.path,
      locator: a.locator,
      format: a.format,
      instance: a.instance,
      agent: a.agent,
      model: a.model,
      steps: a.steps,
      resolved: a.resolved,
      resolved_source: a.resolvedSource,
      explanation_chars: a.explanationChars,
      patch_chars: a.patchChars,
    })),
    instances: report.instances,
    skipped: report.skipped.map(s => ({
      path: s.path,
      locator: s.locator,
      reason: s.reason,
      existing_id: s.existing ?? null,
    })),
    failed: report.failed.map(f => ({
      path: f.path,
      error: f.error,
      line: f.line ?? null,
      column: f.column ?? null,
      json_path: f.jsonPath ?? null,
    })),
    warnings: report.warnings.map(w => ({
      id: w.id,
      path: w.path,
      locator: w.locator,
      field: w.field,
      message: w.message,
    })),
  };
}

function printHuman(report: ImportReport, db: string): void {
  for (const a of report.added) {
    const status = a.resolved === null ? 'unknown' : a.resolved ? 'resolved' : 'unresolved';
    say(
      `added #${a.id} ${a.instance}  ${a.agent}  ${a.format}, ${a.steps} steps, ${status}  ${relativePath(a.path)}${a.locator ? ` (${a.locator})` : ''}`,
    );
  }
  for (const i of report.instances) say(`instance ${i.instance} ${i.status}  ${relativePath(i.path)}`);
  // Duplicates are named one by one; files that are not trajectories are counted by reason.
  const byReason = new Map<string, number>();
  for (const s of report.skipped) {
    if (s.existing)
      say(`skipped ${relativePath(s.path)}${s.locator ? ` (${s.locator})` : ''}: ${s.reason} (#${s.existing})`);
    else byReason.set(s.reason.replace(/ \(.*\)$/, ''), (byReason.get(s.reason.replace(/ \(.*\)$/, '')) ?? 0) + 1);
  }
  for (const [reason, n] of byReason) say(`skipped ${n} file${n === 1 ? '' : 's'}: ${reason} (--json lists them)`);
  for (const f of report.failed) warn(`failed ${relativePath(f.path)}: ${f.error}`);
  for (const w of report.warnings)
    warn(`warning #${w.id} ${relativePath(w.path)}${w.locator ? ` (${w.locator})` : ''}: ${w.field}: ${w.message}`);
  say(
    `${report.added.length} added, ${report.skipped.length} skipped, ${report.failed.length} failed` +
      `${report.instances.length ? `, ${report.instances.length} instance records` : ''} → ${relativePath(db)}`,
  );
}

/** A path as the user would type it from here; absolute when it lies outside the current folder. */
function relativePath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel || '.';
}
