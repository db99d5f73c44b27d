// Child process for the lens benchmark, so /usr/bin/time measures its peak memory alone.
import {performance} from 'node:perf_hooks';
import {openDb} from '../../source/store/db.js';
import {labelAll} from '../../source/store/lens.js';
import {runLensBuild} from '../../source/services/lens.js';

const db = openDb(process.argv[2]!);
let t = performance.now();
labelAll(db);
const label = (performance.now() - t) / 1000;
t = performance.now();
const r = runLensBuild(db, {});
const build = (performance.now() - t) / 1000;
db.close();
console.error(
  JSON.stringify({
    label,
    build,
    scored: r.runs.length,
    skipped: r.skipped.length,
    lucky: r.runs.filter(x => x.tier === 'Lucky').length,
  }),
);
