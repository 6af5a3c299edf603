import { defineConfig } from 'vitest/config';

// unit: pure logic, no services. integration (*.int.test.ts): the real RabbitMQ and PostgreSQL
// that `mqlab up` starts (test/global-setup.ts brings them up when they are not running).
export default defineConfig({
  test: {
    // the JSON report lets .ci/run print a plain "N passed, N failed" closing line
    reporters: ['default', ['json', { outputFile: '.mqlab-test/results.json' }]],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'labs/**/*.test.ts', 'scripts/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', 'node_modules/**', 'dist/**', '.mqlab*/**'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.int.test.ts', 'labs/**/*.int.test.ts', 'src/**/*.int.test.ts', 'scripts/**/*.int.test.ts'],
          // the labs that kill cluster nodes run in their own suite (vitest.cluster.config.ts)
          exclude: ['**/*.cluster.int.test.ts', 'node_modules/**', 'dist/**', '.mqlab*/**'],
          globalSetup: ['test/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
