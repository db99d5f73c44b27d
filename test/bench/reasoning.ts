/**
 * Code-reasoning tagging throughput: the default detector over every real thought in the
 * sample runs, repeated until ~20,000 steps; and `reasoning tag` over a database of that size
 * (detection + writing the tags). Figures go to readme.md.
 */
import {readdirSync, readFileSync, rmSync, statSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {detectReasoning} from '../../source/core/reasoning/detect.js';
import {parseMiniSweAgent} from '../../source/core/trajectory/mini-swe-agent.js';
import {importPaths} from '../../source/services/importer.js';
import {assistantText, tagReasoning} from '../../source/services/reasoning.js';
import {deskcheckTurn} from '../../source/core/reasoning/deskcheck.js';
import {openDb} from '../../source/store/db.js';
import {SAMPLES} from '../helpers/paths.js';

export async function benchReasoning(out: string, corpus: string | null, log: (line: string) => void): Promise<void> {
  const multi = join(SAMPLES, 'mini-swe-agent-multi');
  const thoughts: string[] = [];
  const contents: (string | null)[] = [];
  for (const run of readdirSync(multi)) {
    if (!statSync(join(multi, run)).isDirectory()) continue;
    for (const f of readdirSync(join(multi, run))) {
      const steps = parseMiniSweAgent(JSON.parse(readFileSync(join(multi, run, f), 'utf8')), 'x').steps;
      thoughts.push(...steps.map(s => s.thought ?? ''));
      contents.push(...steps.map(s => assistantText({thought: s.thought, action: s.actionText, tool: s.tool})));
    }
  }
  const chars = thoughts.reduce((s, t) => s + t.length, 0);
  const rounds = Math.ceil(20_000 / thoughts.length);
  let marks = 0;
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) for (const t of thoughts) marks += detectReasoning(t).length;
  const s = (performance.now() - t0) / 1000;
  log(
    `reasoning: detector alone ${Math.round((rounds * thoughts.length) / s)} steps/s (${rounds * thoughts.length} real thoughts, mean ${Math.round(chars / thoughts.length)} chars, ${marks} marks)`,
  );
  let qualifying = 0;
  const t1 = performance.now();
  for (let r = 0; r < rounds; r++) for (const t of contents) if (deskcheckTurn(t)) qualifying++;
  const s1 = (performance.now() - t1) / 1000;
  log(
    `reasoning: deskcheck detector alone ${Math.round((rounds * contents.length) / s1)} steps/s (${rounds * contents.length} assistant turns as written, ${qualifying} qualifying)`,
  );
  if (!corpus) return;
  const db = join(out, 'reasoning.db');
  for (const x of ['', '-wal', '-shm']) rmSync(`${db}${x}`, {force: true});
  const d = openDb(db);
  try {
    const ti = performance.now();
    const r = importPaths(d, [corpus], {format: 'auto', maxBytes: 100 * 1024 * 1024});
    const importS = (performance.now() - ti) / 1000;
    const tt = performance.now();
    const tagged = tagReasoning(d);
    const tagS = (performance.now() - tt) / 1000;
    const td = performance.now();
    const desk = tagReasoning(d, {detector: 'deskcheck'});
    const deskS = (performance.now() - td) / 1000;
    log(
      `reasoning: reasoning tag --detector deskcheck ${Math.round(desk.steps / deskS)} steps/s over ${desk.steps} steps (detect + write, run decisions)`,
    );
    log(
      `reasoning: reasoning tag ${Math.round(tagged.steps / tagS)} steps/s over ${tagged.steps} steps of ${tagged.runs} runs (detect + write); import with tagging ${Math.round(tagged.steps / importS)} steps/s (${r.added.length} runs)`,
    );
  } finally {
    d.close();
    for (const x of ['', '-wal', '-shm']) rmSync(`${db}${x}`, {force: true});
  }
}
