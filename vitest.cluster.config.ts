import { defineConfig } from 'vitest/config';

// The cluster suite (*.cluster.int.test.ts): labs that kill RabbitMQ nodes, against a cluster that
// `mqlab up --nodes 3` started (MQLAB_HOME / MQLAB_PORT_OFFSET name it). No global setup: it never
// starts services itself, so it cannot turn a cluster into a single node or the reverse.
// `npm run test:cluster`; .ci/run runs it after the two normal suites.
// files a run leaves out, space-separated (.ci/run: the second cluster line runs without the broken
// variants, as the second single-node line does; vitest.config.ts)
const leftOut = (process.env.MQLAB_TEST_LEAVE_OUT ?? '').split(/\s+/).filter(Boolean);

export default defineConfig({
  test: {
    // MQLAB_TEST_RESULTS: .ci/run gives each cluster suite (4.3, then 3.10) its own report
    reporters: [
      'default',
      ['json', { outputFile: process.env.MQLAB_TEST_RESULTS || '.mqlab-test/results-cluster.json' }],
    ],
    include: ['labs/**/*.cluster.int.test.ts', 'test/**/*.cluster.int.test.ts', 'src/**/*.cluster.int.test.ts'],
    exclude: ['node_modules/**', 'dist/**', '.mqlab*/**', ...leftOut],
    fileParallelism: false,
    // above the 300 s a test's `mqlab` run may take (test/helpers.ts): a lab that hangs is stopped and its output shown
    testTimeout: 420_000,
    hookTimeout: 120_000,
  },
});
