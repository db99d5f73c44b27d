import {cell, printJson, say, warn} from './output.js';
import {COMMON_OPTIONS, EXIT, NotFound, parse, UsageError} from './args.js';
import {openStore} from './db-path.js';
import {getInstance, listInstances, type InstanceDetail, type InstanceSummary} from '../store/instances.js';
import {listExclusions, type ExclusionRow} from '../store/questions.js';
import {importInstances, RecordError} from '../services/instances.js';
import {sanitize} from '../core/text/sanitize.js';

export const INSTANCES_HELP = `Usage: deltalens instances [--json] [--db FILE]
       deltalens instances import FILE [--json] [--db FILE]

SWE-bench instances: the unit every investigation starts from.

  instances            list the instances with a record: repository, base commit, version, the
                       tests that fail before the fix (FAIL_TO_PASS), and how many runs, traced
                       pairs and questions each has
  instances import F   read SWE-bench dataset rows as the datasets library writes them (a JSON
                       array, JSON lines, or one row; FAIL_TO_PASS and PASS_TO_PASS as JSON
                       strings inside the row, or lists) — every field is kept: repo,
                       instance_id, base_commit, patch, test_patch, problem_statement,
                       hints_text, version, environment_setup_commit, created_at, and any
                       other — and the harness's predictions files (instance_id,
                       model_name_or_path, model_patch; a list, JSON lines, or an object keyed
                       by instance id), each stored as a run without steps of the model as its
                       agent. A file is imported whole or not at all: a bad row is said with its
                       number and field, and nothing of the file is kept.

Then: deltalens show instance ID; deltalens trace --instance ID --repo CLONE --gold.

Options:
  --db FILE   database (import: default ./deltalens.db, created when missing; list: default
              ./deltalens.db if present, else the bundled demo database)
  --json      list: {"instances": [{"id", "repo", "base_commit", "version", "created_at",
              "fail_to_pass", "pass_to_pass", "runs", "pairs", "questions"}]};
              import: {"file", "instances": [{"id", "status": "added" | "updated" |
              "unchanged"}], "predictions": [{"instance", "model", "trajectory", "status"}],
              "without_record": [ids]}
Exit codes: 0 ok, 1 a file that cannot be read or a bad row, 2 usage error.`;

export async function runInstances(argv: string[]): Promise<number> {
  const {values, positionals} = parse(argv, COMMON_OPTIONS);
  if (values.help) {
    say(INSTANCES_HELP);
    return EXIT.ok;
  }
  const [sub, ...rest] = positionals;
  if (sub === 'import') {
    if (rest.length !== 1) throw new UsageError('instances import takes one FILE');
    const {db, path} = await openStore(values.db, 'create');
    try {
      let report;
      try {
        report = importInstances(db, rest[0]!);
      } catch (error) {
        if (error instanceof RecordError) {
          warn(`deltalens: ${rest[0]}: ${error.message}; nothing of the file was imported`);
          return EXIT.failed;
        }
        throw error;
      }
      if (values.json) {
        printJson({
          file: report.file,
          instances: report.instances,
          predictions: report.predictions,
          without_record: report.withoutRecord,
        });
        return EXIT.ok;
      }
      const count = (status: string) => report.instances.filter(i => i.status === status).length;
      if (report.instances.length)
        say(
          `${report.instances.length} instance records: ${count('added')} added, ${count('updated')} updated, ${count('unchanged')} unchanged (${path})`,
        );
      if (report.predictions.length) {
        const added = report.predictions.filter(p => p.status === 'added').length;
        const models = [...new Set(report.predictions.map(p => p.model))];
        say(
          `${report.predictions.length} predictions of ${models.map(sanitize).join(', ')}: ${added} added as runs without steps, ${report.predictions.length - added} already imported`,
        );
      }
      if (report.withoutRecord.length) {
        say(
          `no instance record for ${report.withoutRecord.length} of the predicted instances (${report.withoutRecord.slice(0, 5).map(sanitize).join(', ')}${report.withoutRecord.length > 5 ? ', …' : ''}): import the dataset rows to trace them with --instance`,
        );
      }
      return EXIT.ok;
    } finally {
      db.close();
    }
  }
  if (sub !== undefined) throw new UsageError(`instances takes "import FILE" or nothing (got "${sub}")`);
  const {db} = await openStore(values.db, 'read');
  try {
    const rows = listInstances(db, {withRecordOnly: true});
    if (values.json) printJson({instances: rows.map(summaryJson)});
    else printTable(rows);
  } finally {
    db.close();
  }
  return EXIT.ok;
}

function summaryJson(r: InstanceSummary) {
  return {
    id: r.id,
    repo: r.repo,
    base_commit: r.baseCommit,
    version: r.version,
    created_at: r.createdAt,
    fail_to_pass: r.failToPass,
    pass_to_pass: r.passToPass,
    runs: r.runs,
    pairs: r.pairs,
    questions: r.questions,
  };
}

function printTable(rows: InstanceSummary[]): void {
  if (!rows.length) {
    say('no instance records (deltalens instances import FILE)');
    return;
  }
  const width = Math.max(8, ...rows.map(r => r.id.length));
  say(`${'instance'.padEnd(width)}  ${'repo'.padEnd(22)}  base      version  FAIL_TO_PASS  runs  pairs  questions`);
  for (const r of rows) {
    say(
      `${cell(r.id).padEnd(width)}  ${cell(r.repo ?? '-')
        .slice(0, 22)
        .padEnd(
          22,
        )}  ${(r.baseCommit ?? '-').slice(0, 8).padEnd(8)}  ${cell(r.version ?? '-').padEnd(7)}  ${String(r.failToPass.length).padStart(12)}  ${String(r.runs).padStart(4)}  ${String(r.pairs).padStart(5)}  ${String(r.questions).padStart(9)}`,
    );
  }
  say(`${rows.length} instance${rows.length === 1 ? '' : 's'}`);
}

function instanceJson(d: InstanceDetail) {
  return {
    ...summaryJson(d),
    environment_setup_commit: d.environmentSetupCommit,
    problem_statement: d.problemStatement,
    hints_text: d.hintsText,
    patch: d.goldPatch,
    test_patch: d.testPatch,
    source_path: d.sourcePath,
    imported_at: d.importedAt,
    record: d.record,
  };
}

/** `show instance ID` (called from the show command). */
function printInstance(d: InstanceDetail, json: boolean, notBuilt: ExclusionRow[] = []): void {
  if (json) {
    printJson({
      ...instanceJson(d),
      not_built: notBuilt.map(e => ({stage: e.stage, agent: e.agent, reason: e.reason, at: e.created_at})),
    });
    return;
  }
  say(
    `${sanitize(d.id)} — ${sanitize(d.repo ?? 'no repository')} at ${d.baseCommit ?? 'no base commit'}${d.version ? `, version ${sanitize(d.version)}` : ''}${d.createdAt ? `, created ${sanitize(d.createdAt)}` : ''}`,
  );
  if (!d.hasRecord)
    say('(no dataset record: only the id a run, a trace or a question names; deltalens instances import FILE)');
  say(`runs ${d.runs} · traced pairs ${d.pairs} · questions ${d.questions}`);
  say(`\nFAIL_TO_PASS (${d.failToPass.length}):`);
  for (const t of d.failToPass) say(`  ${sanitize(t)}`);
  say(`PASS_TO_PASS: ${d.passToPass.length} tests`);
  if (notBuilt.length) {
    say(`\nNot built (${notBuilt.length}; the latest questions build said why):`);
    for (const e of notBuilt)
      say(
        `  ${e.stage}${e.agent ? ` (${sanitize(e.agent)})` : ''}, ${e.created_at.slice(0, 16).replace('T', ' ')}: ${sanitize(e.reason)}`,
      );
  }
  if (d.problemStatement) say(`\nProblem statement:\n${sanitize(d.problemStatement).trimEnd()}`);
  if (d.hintsText?.trim()) say(`\nHints:\n${sanitize(d.hintsText).trimEnd()}`);
  if (d.goldPatch) say(`\nGold patch:\n${sanitize(d.goldPatch).trimEnd()}`);
  if (d.testPatch) say(`\nTest patch:\n${sanitize(d.testPatch).trimEnd()}`);
}

export function showInstance(db: Parameters<typeof getInstance>[0], id: string, json: boolean): void {
  const d = getInstance(db, id);
  if (!d) throw new NotFound(`no instance ${id} in the store (deltalens instances lists them)`);
  printInstance(d, json, listExclusions(db, id));
}
