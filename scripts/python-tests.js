// Runs the Python test suites (tracer/) with the standard library's unittest runner.
// Until the tracer lands there are none; say so instead of pretending.
import {existsSync} from 'node:fs';
import {spawnSync} from 'node:child_process';

if (!existsSync('tracer/tests')) {
  console.log('python: no Python test suites yet (tracer/ arrives with the traces issue)');
  process.exit(0);
}
const result = spawnSync('python3', ['-m', 'unittest', 'discover', '-s', 'tracer/tests', '-t', 'tracer', '-v'], {stdio: 'inherit'});
process.exit(result.status ?? 1);
