import {say} from './output.js';
import {openStepper, type StepRowData, type WatchValue} from '../services/stepper.js';
import {openStore} from './db-path.js';
import {COMMON_OPTIONS, EXIT, NotFound, parse, positiveInt, printJson, UsageError} from './args.js';

export const STEPS_HELP = `Usage: deltalens steps PAIR [--from ROW | --delta] [--limit N] [--watch EXPR]... [--json] [--db FILE]

The stepper's aligned rows of a traced pair, as the explorer shows them: each row is one
statement on both sides, or on one side where control flow split (the other side waits where
it last was). Per row: what it is, whether it is the delta point, which variables differ, and
for each side the function, file, line, whether it waits, whether values were recorded there,
its locals and its call stack.

  --from ROW   the first row to print (1-based; default 1)
  --delta      start at the delta point's row
  --limit N    rows to print (default 50; 0: all)
  --watch EXPR evaluate a watch on both sides at every row printed, from the recorded values
               (a plain read of recorded names: x, self.items[0].qty, d['k'], len(x)); what
               needs a live re-run says so (the explorer's L runs it)

With --json: {"pair", "rows", "truncated", "delta_row", "from", "steps": [{"row", "depth",
"what", "delta", "differs": [name], "buggy": {"fn", "file", "line", "kind", "waiting",
"recorded", "locals": {name: value}, "stack": [{"fn", "file", "line"}]} | null,
"patched": {…} | null, "watches"?: [{"expr", "source": "recorded" | "unavailable", "buggy":
{"value" | "error"}, "patched": {…}, "note"?}]}]} — values in the tracer's encoding (docs/traces.md).`;

export async function runSteps(argv: string[]): Promise<number> {
  const {values, positionals} = parse(argv, {
    ...COMMON_OPTIONS,
    from: {type: 'string'},
    delta: {type: 'boolean'},
    limit: {type: 'string'},
    watch: {type: 'string', multiple: true},
  });
  const watches = values.watch ?? [];
  if (values.help) {
    say(STEPS_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1 || !/^\d+$/.test(positionals[0]!))
    throw new UsageError('steps takes one pair id: deltalens steps PAIR');
  if (values.from !== undefined && values.delta)
    throw new UsageError('--from and --delta both say where to start: give one');
  const pair = Number(positionals[0]);
  const from = positiveInt(values.from, '--from');
  if (from === 0) throw new UsageError('--from counts rows from 1');
  const limit = positiveInt(values.limit, '--limit') ?? 50;
  const {db} = await openStore(values.db, 'read');
  try {
    const model = openStepper(db, pair);
    if ('error' in model) throw new NotFound(model.error);
    const start = values.delta ? Math.max(0, model.deltaRow) : (from ?? 1) - 1;
    const end = limit === 0 ? model.rows.length : Math.min(model.rows.length, start + limit);
    const steps: (StepRowData & {watches?: WatchValue[]})[] = [];
    for (let r = start; r < end; r++)
      steps.push(
        watches.length ? {...model.rowData(r), watches: watches.map(w => model.watchRecorded(w, r))} : model.rowData(r),
      );
    if (values.json) {
      printJson({
        pair,
        rows: model.rows.length,
        truncated: model.truncated,
        delta_row: model.deltaRow < 0 ? null : model.deltaRow + 1,
        from: start + 1,
        steps,
      });
      return EXIT.ok;
    }
    say(
      `pair #${pair}: ${model.rows.length} aligned rows${model.truncated ? ' (cut: the stepper reads at most that many)' : ''}; delta ${model.deltaRow < 0 ? 'none' : `at row ${model.deltaRow + 1}`}`,
    );
    if (values.delta && model.deltaRow < 0) say('(no delta point: starting at row 1)');
    for (const s of steps) {
      const where = (side: StepRowData['buggy']) =>
        side
          ? `${side.waiting ? '(waits) ' : ''}${side.fn} ${side.file}:${side.line ?? '-'}${side.result !== undefined ? ` ${side.result}` : ''}`
          : '—';
      say(
        `${s.delta ? '◆' : ' '} ${String(s.row).padStart(5)}  ${'  '.repeat(Math.min(s.depth, 10))}${where(s.buggy)}  ↔  ${where(s.patched)}  · ${s.what}${s.differs.length ? ` · differs: ${s.differs.join(', ')}` : ''}`,
      );
      for (const w of s.watches ?? []) {
        const one = (v: WatchValue['buggy']) =>
          !v ? '—' : 'error' in v && v.error ? `(${v.error})` : JSON.stringify(v.value);
        say(`         ${w.expr}: ${w.source === 'unavailable' ? w.note : `${one(w.buggy)} ↔ ${one(w.patched)}`}`);
      }
    }
    if (end < model.rows.length) say(`… ${model.rows.length - end} more rows (--from ${end + 1})`);
    return EXIT.ok;
  } finally {
    db.close();
  }
}
