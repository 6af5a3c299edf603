/**
 * `npm test`: the whole suite against mqlab's own services. The disruptive labs' files (they stop and
 * restart PostgreSQL and the RabbitMQ node: vitest.config.ts DISRUPTIVE) run on a second set of
 * mqlab's services, in a second vitest process beside the first, instead of alone after everything
 * else: most of their time is a service's stop and start, not CPU (alone they were about half of the
 * serial group's 9 minutes). The second set is of the same backend as the first, in `<home>-disruptive`
 * at the first set's port offset ± 5000; this script starts it and stops it again at the end, and its
 * files' output follows the rest's.
 *
 * `npm test -- ARGS` (a file, a filter, --project …) is plain `vitest run ARGS`: one process, the
 * disruptive files in the serial group on the one set. So is a run on services mqlab did not start
 * (MQLAB_AMQP_URL / MQLAB_PG_URL), or on Docker, or with MQLAB_TEST_DISRUPTIVE_HOME already set
 * (.ci/run starts its own second sets).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { defaultHome } from '../src/core/home.js';
import { portOffset } from '../src/core/defaults.js';
import { recordedBackend } from '../src/services/data-folder.js';
import { disruptiveOffset } from './test-lanes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'bin', 'mqlab.js');
const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
const args = process.argv.slice(2);
const say = (line: string) => process.stderr.write(`npm test: ${line}\n`);

const children: ChildProcess[] = [];
/** a child process, its exit code when it ends (a signal's end counts as 1) */
function run(argv: string[], env: NodeJS.ProcessEnv, stdio: StdioOptions): Promise<number> {
  const child = spawn('node', argv, { env, stdio });
  children.push(child);
  return new Promise((resolve) => {
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

const plain = () => run([vitest, 'run', ...args], process.env, 'inherit');

async function main(): Promise<number> {
  const env = process.env;
  if (args.length || env.MQLAB_TEST_DISRUPTIVE_HOME || env.MQLAB_AMQP_URL || env.MQLAB_PG_URL) return plain();
  // the first set up (a no-op when it runs; on a new machine this builds the private root once), so
  // its backend is known before the second starts
  const up = await run([cli, 'up'], env, 'inherit');
  if (up !== 0) return up;
  const home = defaultHome(root, env);
  const backend = recordedBackend(home);
  if (backend !== 'chroot' && backend !== 'system') return plain();
  const second = {
    MQLAB_TEST_DISRUPTIVE_HOME: `${home}-disruptive`,
    MQLAB_TEST_DISRUPTIVE_PORT_OFFSET: String(disruptiveOffset(portOffset(env))),
  };
  const secondSet = {
    ...env,
    MQLAB_HOME: second.MQLAB_TEST_DISRUPTIVE_HOME,
    MQLAB_PORT_OFFSET: second.MQLAB_TEST_DISRUPTIVE_PORT_OFFSET,
  };
  const log = path.join(root, '.mqlab-test', 'disruptive.log');
  fs.mkdirSync(path.dirname(log), { recursive: true });
  say(
    `the disruptive labs' files run beside the others on a second set (${backend}, ${second.MQLAB_TEST_DISRUPTIVE_HOME}, ` +
      `port offset ${second.MQLAB_TEST_DISRUPTIVE_PORT_OFFSET}); their output follows the rest's (and is in ${path.relative(root, log)})`,
  );
  let stopping = false;
  const stop = () => {
    stopping = true;
    for (const c of children) c.kill('SIGINT');
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const out = fs.openSync(log, 'w');
  const started = Date.now();
  const lane = (async () => {
    const u = await run([cli, 'up', '--backend', backend], secondSet, ['ignore', out, out]);
    if (u !== 0 || stopping) return u || 1;
    const files = { ...env, ...second, MQLAB_TEST_RESULTS: '.mqlab-test/results-disruptive.json' };
    return run([vitest, 'run', '--project', 'integration-disruptive'], files, ['ignore', out, out]);
  })();
  const restExit = await run([vitest, 'run', '--project', '!integration-disruptive'], { ...env, ...second }, 'inherit');
  if (!stopping)
    say(`the rest ended after ${Math.round((Date.now() - started) / 1000)} s; the disruptive labs' files:`);
  const laneExit = await lane;
  fs.closeSync(out);
  process.stdout.write(fs.readFileSync(log, 'utf8'));
  const down = await run([cli, 'down'], secondSet, ['ignore', 'ignore', 'inherit']);
  say(
    down === 0
      ? `the second set stopped (its data stays in ${second.MQLAB_TEST_DISRUPTIVE_HOME})`
      : `stopping the second set failed (exit ${down}): run MQLAB_HOME=${secondSet.MQLAB_HOME} MQLAB_PORT_OFFSET=${secondSet.MQLAB_PORT_OFFSET} npx mqlab down`,
  );
  say(
    `${Math.round((Date.now() - started) / 1000)} s: the rest ${restExit === 0 ? 'passed' : `failed (exit ${restExit})`}, ` +
      `the disruptive labs' files ${laneExit === 0 ? 'passed' : `failed (exit ${laneExit})`}`,
  );
  if (stopping) return 130;
  return restExit || laneExit;
}

process.exitCode = await main();
