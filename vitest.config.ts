import { defineConfig } from 'vitest/config';

// unit: pure logic, no services. integration (*.int.test.ts): the real RabbitMQ and PostgreSQL
// that `mqlab up` starts (test/global-setup.ts brings them up when they are not running).
//
// Each integration file runs in a namespace of its own (useNamespace, test/int-namespaces.test.ts),
// so files run at the same time: MQLAB_TEST_WORKERS at once (2 unless told; 1 = one after the other).
// The files in SERIAL run afterwards, one at a time: they load both cores themselves (`mqlab all
// --jobs 4`, a browser, dozens of CLI spawns), decide from a rate that a busy machine lowers, or
// bound a wall time measured in the test process (a 5 s or 20 s limit that a neighbour file's load
// would decide; seen failing with files side by side at load average 23).
// The files that stop or restart a service: the disruptive labs' own, test/set-lock.int.test.ts (two
// db-outage runs and two labs on one set at once), test/all.int.test.ts (`mqlab all` runs db-outage and
// broker-restart, then four labs at once) and test/html.int.test.ts (db-outage's page, headless Chromium)
const DISRUPTIVE = [
  'labs/db-outage/*.int.test.ts',
  'labs/broker-restart/*.int.test.ts',
  'test/set-lock.int.test.ts',
  'test/all.int.test.ts',
  'test/html.int.test.ts',
  'test/check-consumers.int.test.ts', // broker-restart and db-outage groups of mqlab check
  'test/pauses-disruptive.int.test.ts', // every pause of db-outage and broker-restart
  'test/try-this-disruptive.int.test.ts', // the Try-this lines of db-outage, broker-restart and consumer-timeout
];
// The files that walk every lab's page: long (7 and 10-17 min), each lab run one after the other
const PAGES = [
  'test/pauses.int.test.ts', // headless Chromium at every pause of every lab
  'test/try-this.int.test.ts', // every lab page's Try-this commands as printed: ~50 lab runs, and vhost-wide policies for a moment
];
const SERIAL = [
  'test/live.int.test.ts', // headless Chromium on a live run and the player
  ...PAGES,
  'labs/requeue-storm/*.int.test.ts', // a storm of redeliveries holds a core for its window
  'test/service-lost.int.test.ts', // a lost service noticed "at once": < 5 s after the cut
  'test/services.int.test.ts', // a second `mqlab up` returns in < 5 s
  'test/status-left-faults.int.test.ts', // leaves the set's link-cut table for a moment: `mqlab status` exits 2 then
  'labs/retry-dlq/replay-gate.int.test.ts', // --step: the first checkpoint within 20 s
  'labs/order-timeout/order-timeout.int.test.ts', // a payment raced against the check's UPDATE (--gate)
  // 3.10: the lab sets the broker-wide consumer_timeout (1 s) while its channels open: a file beside it
  // could open a channel in that moment and have its held deliveries timed out
  'labs/consumer-timeout/*.int.test.ts',
  // stop or restart the shared PostgreSQL / RabbitMQ node (disruptive labs): nothing may run beside
  // them — unless they have a set of services of their own (DISRUPTIVE_SET below)
  ...DISRUPTIVE,
  'test/reports.int.test.ts', // `mqlab all --jobs 4` with every report (four labs at once, then a browser)
  // thirty vhosts and roles made and removed: an audit of every vhost beside it would see them come and go
  'test/class.int.test.ts',
];
/**
 * MQLAB_TEST_DISRUPTIVE_HOME (+ MQLAB_TEST_DISRUPTIVE_PORT_OFFSET): a second set of mqlab's services,
 * already up, that only the disruptive labs' files use (.ci/run starts one per broker line). They stop
 * and restart that set's PostgreSQL and RabbitMQ, nobody else's, so they can run at the same time as
 * the other integration files instead of alone at the end: most of their time is a service's stop and
 * start, not CPU. They are then a project of their own, 'integration-disruptive', with that set in its
 * environment, one file at a time; .ci/run runs it in a second vitest process beside the first
 * (`--project '!integration-disruptive'`): vitest runs two projects side by side only with the same
 * number of workers. Unset (`npm test`): they stay in the serial group, on the one set.
 */
const DISRUPTIVE_SET = process.env.MQLAB_TEST_DISRUPTIVE_HOME
  ? {
      MQLAB_HOME: process.env.MQLAB_TEST_DISRUPTIVE_HOME,
      MQLAB_PORT_OFFSET: process.env.MQLAB_TEST_DISRUPTIVE_PORT_OFFSET ?? '0',
    }
  : null;
/**
 * MQLAB_TEST_PAGES_HOME (+ MQLAB_TEST_PAGES_PORT_OFFSET): a set of their own for the PAGES files, as
 * DISRUPTIVE_SET is for the disruptive ones: project 'integration-pages', which .ci/run runs in a third
 * vitest process beside the others (try-this runs labs without a namespace and sets vhost-wide policies
 * for a moment: on a set of its own nothing else sees them). Unset: they stay in the serial group.
 */
const PAGES_SET = process.env.MQLAB_TEST_PAGES_HOME
  ? {
      MQLAB_HOME: process.env.MQLAB_TEST_PAGES_HOME,
      MQLAB_PORT_OFFSET: process.env.MQLAB_TEST_PAGES_PORT_OFFSET ?? '0',
    }
  : null;
const workers = Number(process.env.MQLAB_TEST_WORKERS || 2);
// files a run leaves out, space-separated (.ci/run: the second broker line runs without the files
// whose verdict does not depend on the line; its list says which and why)
const leftOut = (process.env.MQLAB_TEST_LEAVE_OUT ?? '').split(/\s+/).filter(Boolean);
const integration = {
  include: ['test/**/*.int.test.ts', 'labs/**/*.int.test.ts', 'src/**/*.int.test.ts', 'scripts/**/*.int.test.ts'],
  // the labs that kill cluster nodes run in their own suite (vitest.cluster.config.ts)
  exclude: ['**/*.cluster.int.test.ts', 'node_modules/**', 'dist/**', '.mqlab*/**', ...leftOut],
  globalSetup: ['test/global-setup.ts'],
  testTimeout: 120_000,
  hookTimeout: 300_000,
};

export default defineConfig({
  test: {
    // the JSON report lets .ci/run print a plain "N passed, N failed" closing line
    // (MQLAB_TEST_RESULTS: .ci/run gives each suite its own file, so two suites at once do not mix)
    reporters: ['default', ['json', { outputFile: process.env.MQLAB_TEST_RESULTS || '.mqlab-test/results.json' }]],
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'src/**/*.test.ts',
            'labs/**/*.test.ts',
            'scripts/**/*.test.ts',
            'test/**/*.test.ts',
            'examples/**/*.test.ts',
          ],
          exclude: ['**/*.int.test.ts', 'node_modules/**', 'dist/**', '.mqlab*/**'],
          // one module graph per worker, not per file: pure logic with no module state, no vi.mock and
          // no process.env writes, so nothing carries from one file to the next (it passes shuffled).
          // Importing the graph again for each of ~80 files was most of the project's time: 58 s -> 13 s
          isolate: false,
          // a wall-time limit a busy machine decides, not the code: CI runs the suites of three lines and
          // three clusters beside this project (load average 34 seen), where a 5 s limit failed the
          // audit's CPU-bounded tests (they assert CPU time) and a CLI spawn. 60 s still ends a hang
          testTimeout: 60_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...integration,
          name: 'integration',
          exclude: [...integration.exclude, ...SERIAL],
          maxWorkers: workers,
          fileParallelism: workers > 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...integration,
          name: 'integration-serial',
          include: SERIAL.filter(
            (f) => !(DISRUPTIVE_SET && DISRUPTIVE.includes(f)) && !(PAGES_SET && PAGES.includes(f)),
          ),
          exclude: integration.exclude,
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
      ...(DISRUPTIVE_SET
        ? [
            {
              test: {
                ...integration,
                name: 'integration-disruptive',
                include: DISRUPTIVE,
                env: DISRUPTIVE_SET,
                maxWorkers: 1,
                fileParallelism: false,
                sequence: { groupOrder: 3 }, // after the others when one process runs them all
              },
            },
          ]
        : []),
      ...(PAGES_SET
        ? [
            {
              test: {
                ...integration,
                name: 'integration-pages',
                include: PAGES,
                env: PAGES_SET,
                maxWorkers: 1,
                fileParallelism: false,
                sequence: { groupOrder: 4 },
              },
            },
          ]
        : []),
    ],
  },
});
