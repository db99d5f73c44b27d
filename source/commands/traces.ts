import {existsSync, statSync} from 'node:fs';
import {cell, say, warn} from './output.js';
import {NotFound} from './show.js';
import {FormatError} from '../core/trajectory/model.js';
import {getPair, getTrace, latestDelta, listPairs} from '../store/traces.js';
import {importPodResult, importTracePair, PodResultError, podResultDirs} from '../services/trace-ingest.js';
import {parseDeltaOptions} from './trace.js';
import {deltaJson, describeDelta} from './trace-json.js';
import {openStore} from './db-path.js';
import {COMMON_OPTIONS, EXIT, parse, printJson, UsageError} from './args.js';
import {testOutcomeJson} from './trace-json.js';

export const TRACES_HELP = `Usage: deltalens traces [--instance I] [--json] [--db FILE]
       deltalens traces import BUGGY_FILE PATCHED_FILE [--instance I] [--label L] [--test T]
                               [--option NAME]... [--json] [--db FILE]
       deltalens traces import --results DIR [--option NAME]... [--json] [--db FILE]

List traced patch pairs (one test on a buggy and a patched tree) with their delta.
With --json: {"pairs": [{"pair", "instance", "label", "test", "traces": {"buggy", "patched",
"buggy_rerun", "patched_rerun"}, "status": {"buggy", "patched"}, "outcomes": {"buggy",
"patched"}, "events": {…}, "changed_functions", "delta": {"status", "kind", "function",
"file", "line", "timing", "variables"}}]}.

traces import stores two trace files as a pair and computes their delta: files written by
python -m deltatrace run, or by swe-bench-tracer-py (the public ExplainBench tracer; recognised
by their events and converted: frames rebuilt from the event order, the test outcome inferred
from the entry frame). No patch is known, so lines map one to one; --option match-by-text
matches statements by their text instead (the public ExplainBench behaviour).

traces import --results DIR stores what the pods of batch trace --emit-k8s wrote (DIR: one
pod's folder, or a folder of them): each instance's first runs as a pair, its second runs as
their re-runs, the delta taken with the patch's line mapping from the job. A folder imported
before is skipped; a pod that failed or did not finish is named.`;

/** traces import --results DIR: the pods' folders, each stored as a pair. */
async function importResults(
  dir: string,
  options: ReturnType<typeof parseDeltaOptions>,
  values: {db?: string; json?: boolean},
): Promise<number> {
  let dirs: string[];
  try {
    dirs = podResultDirs(dir);
  } catch (error) {
    if (error instanceof PodResultError) throw new NotFound(error.message);
    throw error;
  }
  if (!dirs.length) throw new NotFound(`${dir}: no pod results in it (folders with job.json and result.json)`);
  const {db, path: dbPath} = await openStore(values.db, 'create');
  const rows: Record<string, unknown>[] = [];
  let failed = 0;
  try {
    for (const one of dirs) {
      try {
        const imported = importPodResult(db, one, {options});
        if (!imported) {
          rows.push({dir: one, status: 'already imported'});
          if (!values.json) say(`${cell(one)}: already imported`);
          continue;
        }
        const d = imported.delta;
        const pair = getPair(db, imported.pair)!;
        rows.push({
          dir: one,
          status: 'imported',
          pair: imported.pair,
          instance: pair.instance,
          test: pair.test,
          delta: {
            status: d.status,
            kind: d.kind ?? null,
            function: d.function ?? null,
            file: d.file ?? null,
            line: d.line ?? null,
          },
        });
        if (!values.json)
          say(
            `${cell(pair.instance ?? '?')} · ${cell(pair.test)}: ${d.status === 'found' ? `${d.kind} delta in ${cell(d.function ?? '?')} (${cell(d.file ?? '?')}:${d.line})` : d.status} — pair #${imported.pair}`,
          );
      } catch (error) {
        if (!(error instanceof PodResultError || error instanceof FormatError)) throw error;
        failed += 1;
        const message = error instanceof FormatError ? error.describe() : error.message;
        rows.push({dir: one, status: 'failed', error: message});
        if (!values.json) warn(`deltalens: ${message}`);
      }
    }
    if (values.json) printJson({results: rows, db: dbPath});
    else say(`${rows.filter(r => r.status === 'imported').length} imported, ${failed} failed; stored in ${dbPath}`);
    return failed ? EXIT.failed : EXIT.ok;
  } finally {
    db.close();
  }
}

export async function runTraces(argv: string[]): Promise<number> {
  if (argv[0] === 'import') return importPair(argv.slice(1));
  const {values} = parse(argv, {...COMMON_OPTIONS, instance: {type: 'string'}}, false);
  if (values.help) {
    say(TRACES_HELP);
    return EXIT.ok;
  }
  const {db} = await openStore(values.db, 'read');
  try {
    const rows = listPairs(db, values.instance).map(pair => {
      const b = pair.buggyTrace ? getTrace(db, pair.buggyTrace) : null;
      const p = pair.patchedTrace ? getTrace(db, pair.patchedTrace) : null;
      const d = latestDelta(db, pair.id);
      return {
        pair: pair.id,
        instance: pair.instance,
        label: pair.label,
        test: pair.test,
        traces: {
          buggy: pair.buggyTrace,
          patched: pair.patchedTrace,
          buggy_rerun: pair.buggyRerun,
          patched_rerun: pair.patchedRerun,
        },
        status: {buggy: b?.status ?? 'missing', patched: p?.status ?? 'missing'},
        outcomes: {buggy: testOutcomeJson(b?.outcome ?? null), patched: testOutcomeJson(p?.outcome ?? null)},
        events: {buggy: b?.events ?? 0, patched: p?.events ?? 0},
        changed_functions: (pair.changes?.functions ?? []).map(f => `${f.file}:${f.qualname}`),
        delta: d && {
          id: d.id,
          status: d.status,
          kind: d.status === 'none' ? 'none' : d.kind,
          function: d.function,
          file: d.file,
          line: d.line,
          timing: d.timing,
          variables: d.variables.map(v => v.name),
          reason: d.reason ?? null,
        },
      };
    });
    if (values.json) printJson({pairs: rows});
    else {
      for (const r of rows) {
        const d = r.delta;
        const what = !d
          ? 'no delta'
          : d.status === 'none'
            ? '∅ no effect'
            : d.status === 'incomplete'
              ? `incomplete: ${d.reason}`
              : `${d.kind} in ${d.function} ${d.file ?? ''}${d.line ? `:${d.line}` : ''}`;
        say(
          `#${String(r.pair).padEnd(4)} ${cell(r.instance).padEnd(22)} ${cell(r.label).padEnd(18)} ${r.outcomes.buggy?.status ?? '?'} → ${r.outcomes.patched?.status ?? '?'}  ${what}`,
        );
      }
      say(`${rows.length} traced pairs`);
    }
  } finally {
    db.close();
  }
  return EXIT.ok;
}

async function importPair(argv: string[]): Promise<number> {
  const {values, positionals} = parse(argv, {
    ...COMMON_OPTIONS,
    instance: {type: 'string'},
    label: {type: 'string'},
    test: {type: 'string'},
    option: {type: 'string', multiple: true},
    results: {type: 'string'},
  });
  if (values.help) {
    say(TRACES_HELP);
    return EXIT.ok;
  }
  if (values.results !== undefined) {
    if (positionals.length) throw new UsageError('traces import takes two files or --results DIR, not both');
    return importResults(values.results, parseDeltaOptions(values.option), values);
  }
  if (positionals.length !== 2) throw new UsageError('traces import takes two files: BUGGY PATCHED');
  const options = parseDeltaOptions(values.option);
  // checked before the store is opened: a mistyped path must not create a database
  for (const file of positionals) {
    if (!existsSync(file)) throw new NotFound(`no such file: ${file}`);
    if (!statSync(file).isFile()) throw new UsageError(`${file} is not a file`);
  }
  const {db, path: dbPath} = await openStore(values.db, 'create');
  try {
    let imported;
    try {
      imported = importTracePair(db, positionals[0]!, positionals[1]!, {
        instance: values.instance ?? 'imported',
        label: values.label ?? null,
        test: values.test ?? 'imported',
        options,
      });
    } catch (error) {
      if (error instanceof FormatError) {
        warn(`deltalens: ${error.describe()}`);
        return EXIT.failed;
      }
      throw error;
    }
    if (!values.json) {
      imported.summaries.forEach((s, i) =>
        warn(
          `${i ? 'patched' : 'buggy'}: ${positionals[i]} (${s.format}): ${s.status}, ${s.events} events, ${s.frames} frames, test ${s.outcome?.status ?? '?'}`,
        ),
      );
    }
    const buggy = getTrace(db, imported.buggy);
    const patched = getTrace(db, imported.patched);
    const result = imported.delta;
    if (values.json)
      printJson(
        deltaJson(result, buggy, patched, {
          pair: imported.pair,
          line_mapping: options.includes('match-by-text') ? 'text' : 'identity',
          db: dbPath,
        }),
      );
    else {
      say(describeDelta(result, buggy, patched));
      say(
        `stored as pair #${imported.pair} in ${dbPath} (no patch known: lines map one to one${options.includes('match-by-text') ? ', statements matched by text' : ''})`,
      );
    }
    return result.status === 'incomplete' ? EXIT.failed : EXIT.ok;
  } finally {
    db.close();
  }
}
