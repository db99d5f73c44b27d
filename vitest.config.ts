import {defineConfig} from 'vitest/config';

/**
 * The suites that run the real tracer, sandbox and test runners many times over (a minute or
 * more each on a loaded two-core machine): `npm run test:slow` runs them alone (`.ci/run` runs it after `npm test`), `npm run test:all` with the
 * rest; `npm test` leaves them out so that a change can be checked in a few minutes. Every
 * behaviour they check runs in CI.
 */
export const SLOW_SUITES = [
  'test/cli/demo-build.test.ts',
  'test/cli/cli.test.ts',
  'test/cli/questions.test.ts',
  'test/cli/instances.test.ts',
  'test/cli/image.test.ts',
  'test/services/question-build.test.ts',
  'test/services/question-build-library.test.ts',
  'test/services/question-build-model.test.ts',
  'test/services/question-review.test.ts',
  'test/services/sandbox.test.ts',
  'test/services/sandbox-root.test.ts',
  'test/services/values-delta.test.ts',
  'test/services/nondeterminism.test.ts',
  'test/services/delta-shapes.test.ts',
  'test/services/audit.test.ts',
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    // npm test: all but the slow suites; npm run test:slow (DELTALENS_SLOW_TESTS): the slow suites alone;
    // DELTALENS_ALL_TESTS: every suite in one run
    ...(process.env.DELTALENS_SLOW_TESTS ? {include: SLOW_SUITES} : {}),
    exclude:
      process.env.DELTALENS_ALL_TESTS || process.env.DELTALENS_SLOW_TESTS
        ? ['**/node_modules/**']
        : ['**/node_modules/**', ...SLOW_SUITES],
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
