// Runs the Python test suites of the tracer (tracer/tests) with the standard library's
// unittest runner, from tracer/ so `deltatrace` imports as the package it is.
import {spawnSync} from 'node:child_process';
import {fileURLToPath} from 'node:url';

const tracer = fileURLToPath(new URL('../tracer', import.meta.url));
const python = process.env.DELTALENS_PYTHON ?? 'python3';
const result = spawnSync(python, ['-m', 'unittest', 'discover', '-s', 'tests', '-t', 'tests'], {
  cwd: tracer,
  stdio: 'inherit',
});
if (result.error) {
  console.error(`python tests: could not start ${python}: ${result.error.message}`);
}
process.exit(result.status ?? 1);
