import {maxOf} from '../core/arrays.js';
import {cell, say} from './output.js';
import {countTrajectories, listTrajectories, SORT_KEYS, type TrajectorySummary} from '../store/trajectories.js';
import {openStore} from './db-path.js';
import {COMMON_OPTIONS, EXIT, oneOf, parse, positiveInt, printJson} from './args.js';

export const TRAJECTORIES_HELP = `Usage: deltalens trajectories [options]

List stored trajectories.

Options:
  --agent A           only this agent (name, model, or "name model")
  --instance I        only this instance id
  --resolved R        yes | no | unknown
  --tier T            lucky | solid | ideal | none (the last lens build's tier; none: scored
                      without one)
  --sort KEY          ${SORT_KEYS.join(' | ')} (default id); --desc to reverse
  --desc              descending order
  --limit N           at most N rows (default all)
  --offset N          skip N rows
  --db FILE           database (default ./deltalens.db if present, else the bundled demo database)
  --json              print {"total", "trajectories": [...]}
  -h, --help          show this help`;

export async function runTrajectories(argv: string[]): Promise<number> {
  const {values} = parse(
    argv,
    {
      ...COMMON_OPTIONS,
      agent: {type: 'string'},
      instance: {type: 'string'},
      resolved: {type: 'string'},
      tier: {type: 'string'},
      sort: {type: 'string'},
      desc: {type: 'boolean'},
      limit: {type: 'string'},
      offset: {type: 'string'},
    },
    false,
  );
  if (values.help) {
    say(TRAJECTORIES_HELP);
    return EXIT.ok;
  }
  const resolvedFlag = oneOf(values.resolved, ['yes', 'no', 'unknown'] as const, '--resolved');
  const tierFlag = oneOf(values.tier, ['lucky', 'solid', 'ideal', 'none'] as const, '--tier');
  const query = {
    ...(tierFlag === undefined
      ? {}
      : {tier: tierFlag === 'none' ? null : tierFlag[0]!.toUpperCase() + tierFlag.slice(1)}),
    agent: values.agent,
    instance: values.instance,
    resolved: resolvedFlag === undefined ? undefined : resolvedFlag === 'unknown' ? null : resolvedFlag === 'yes',
    sort: oneOf(values.sort, SORT_KEYS, '--sort'),
    descending: values.desc ?? false,
    limit: positiveInt(values.limit, '--limit'),
    offset: positiveInt(values.offset, '--offset'),
  };
  const {db} = await openStore(values.db, 'read');
  try {
    const total = countTrajectories(db, query);
    const rows = listTrajectories(db, query);
    if (values.json) printJson({total, trajectories: rows.map(summaryJson)});
    else printTable(rows, total);
  } finally {
    db.close();
  }
  return EXIT.ok;
}

export function summaryJson(row: TrajectorySummary) {
  return {
    id: row.id,
    instance: row.instance,
    agent: row.agent,
    model: row.model,
    format: row.format,
    resolved: row.resolved,
    exit_status: row.exitStatus,
    steps: row.steps,
    explanation_chars: row.explanationChars,
    patch_chars: row.patchChars,
    lens: row.lens,
  };
}

function printTable(rows: TrajectorySummary[], total: number): void {
  const header = ['id', 'instance', 'agent', 'resolved', 'steps', 'expl'];
  const body = rows.map(r => [
    String(r.id),
    cell(r.instance),
    cell(r.agent),
    r.resolved === null ? '?' : r.resolved ? 'yes' : 'no',
    String(r.steps),
    String(r.explanationChars),
  ]);
  const widths = header.map((h, i) =>
    Math.max(
      h.length,
      maxOf(
        body.map(row => row[i]!.length),
        0,
      ),
    ),
  );
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 || i >= 4 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  say(line(header));
  for (const row of body) say(line(row));
  say(`${rows.length} of ${total} trajectories`);
}
