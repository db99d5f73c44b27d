/**
 * The plain tables of `report` and `trajectories` line up: every row of a table as wide as its
 * header, each column as wide as its widest cell or its heading.
 */
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {importExplainBench} from '../../source/services/explainbench.js';
import {EXPLAINBENCH_DIR, SAMPLE_DIR} from '../../source/services/demo.js';
import {importInto, questionsDb} from '../helpers/db.js';
import {runCli} from '../helpers/hostile.js';

/** The blocks of lines under each "Table N" title, up to the next blank line. */
function tables(text: string): string[][] {
  const out: string[][] = [];
  const lines = text.split('\n');
  lines.forEach((l, i) => {
    if (!/^Table \d/.test(l)) return;
    const block: string[] = [];
    for (let j = i + 1; j < lines.length && lines[j]!.trim(); j++) block.push(lines[j]!);
    out.push(block);
  });
  return out;
}

describe('plain tables', () => {
  it('report: every row of Tables 3, 4 and 5 is as wide as its header (columns aligned under their headings)', async () => {
    const {db, path} = await questionsDb();
    importExplainBench(db, EXPLAINBENCH_DIR);
    db.close();
    const r = runCli(['report', '--db', path], {});
    expect(r.code, r.stderr).toBe(0);
    const found = tables(r.stdout);
    expect(found.length).toBeGreaterThanOrEqual(3);
    for (const block of found) {
      const width = [...block[0]!].length;
      for (const row of block) expect([...row].length, row).toBe(width);
      // a score sits under its heading: Table 3's first score column ends where "E2E int" does
      const heading = block[0]!.indexOf('E2E int  E2E eff');
      if (heading >= 0)
        for (const row of block.slice(1)) expect(row.slice(heading, heading + 7)).toMatch(/^ *(\d\.\d{3}|—)$/);
    }
  });

  it('trajectories: the rows line up under the header', async () => {
    const {db, path} = await questionsDb();
    importInto(db, [join(SAMPLE_DIR, 'trajectories', 'demo-runs')]);
    db.close();
    const r = runCli(['trajectories', '--db', path], {});
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter(l => l.trim());
    const header = lines[0]!;
    const steps = header.indexOf('steps');
    expect(steps).toBeGreaterThan(0);
    for (const row of lines.slice(1, 10)) expect(row.slice(steps, steps + 5)).toMatch(/^ *\d+$/);
  });
});
