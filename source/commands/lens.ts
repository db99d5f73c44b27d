import {resolve} from 'node:path';
import {openDb} from '../store/db.js';
import {labelAll} from '../store/lens.js';
import {chooseDb} from './db-path.js';
import {COMMON_OPTIONS, EXIT, parse, printJson, UsageError} from './args.js';
import {ensureDemo} from './demo.js';

export const LENS_HELP = `Usage: deltalens lens label [--json] [--db FILE]

AgentLens intent labels: every step of every stored trajectory gets a stage (E exploration,
I implementation, V verification, O orchestration) and the rule that fired, with its inputs
(the index of the run's first source edit, the file class, the command group) and the action
state it read. Imports label new runs already; this relabels a database (e.g. after the
labeller changed). See \`deltalens show trajectory ID --json\`.

(PTA references, quality scores, tiers and rankings — lens build / lens report — are not
built yet.)`;

export async function runLens(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const {values} = parse(rest, {...COMMON_OPTIONS}, false);
  if (values.help || sub === '--help' || sub === '-h' || sub === undefined) {
    console.log(LENS_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  if (sub !== 'label') throw new UsageError(`lens takes label (got "${sub}"; build and report are not built yet)`);
  const target = values.db ? {path: resolve(values.db), demo: false} : await ensureDemo(chooseDb(undefined));
  const db = openDb(target.path);
  try {
    const r = labelAll(db);
    const stages = db.prepare('SELECT intent_stage AS stage, count(*) AS n FROM step GROUP BY intent_stage ORDER BY intent_stage').all() as {stage: string | null; n: number}[];
    if (values.json) printJson({trajectories: r.trajectories, steps: r.steps, stages: Object.fromEntries(stages.map(s => [s.stage ?? 'none', s.n]))});
    else console.log(`labelled ${r.steps} steps of ${r.trajectories} trajectories: ${stages.map(s => `${s.stage ?? 'none'} ${s.n}`).join(', ')}`);
  } finally {
    db.close();
  }
  return EXIT.ok;
}
