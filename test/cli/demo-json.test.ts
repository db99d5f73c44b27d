/**
 * What the commands print as JSON on the demo's quick part — the runs, a run whole, the report,
 * the lens report, the questions, the pairs, the instances — held in a snapshot file, so that a
 * change inside (a redesign, a move of code) that changes what a script reads fails here. Run
 * `npx vitest run test/cli/demo-json.test.ts -u` after a change that means to, and read the diff.
 * Times of day and this checkout's folder are replaced by placeholders.
 */
import {join} from 'node:path';
import {beforeAll, describe, expect, it} from 'vitest';
import {tempDir} from '../helpers/files.js';
import {runCli} from '../helpers/hostile.js';
import {ROOT} from '../helpers/paths.js';

const dir = tempDir();
const DB = join(dir, 'demo.db');
process.env.DELTALENS_DEMO_DB = DB;
const demo = await import('../../source/services/demo.js');

beforeAll(async () => {
  await demo.buildDemoQuick();
}, 60_000);

/** The JSON a command prints, with what differs run to run made a placeholder. */
function json(args: string[]): unknown {
  const r = runCli([...args, '--json', '--db', DB], {});
  if (r.code !== 0) throw new Error(`${args.join(' ')}: exit ${r.code}: ${r.stderr}`);
  const text = r.stdout.split(ROOT).join('<ROOT>').split(dir).join('<DB DIR>');
  return JSON.parse(text, (key, value) => (/(_at|At)$/.test(key) && typeof value === 'string' ? '<time>' : value));
}

describe('the JSON the commands print, on the demo', () => {
  it('is what the snapshot holds', async () => {
    const out = {
      trajectories: json(['trajectories']),
      show: json(['show', 'trajectory', '3']),
      report: json(['report']),
      lens: json(['lens', 'report']),
      questions: json(['questions', 'list']),
      traces: json(['traces']),
      instances: json(['instances']),
    };
    await expect(`${JSON.stringify(out, null, 1)}\n`).toMatchFileSnapshot(
      join(ROOT, 'test', 'fixtures', 'demo-json.snapshot.json'),
    );
  }, 120_000);
});
