import path from 'node:path';
import type { Config } from '../../core/config.js';
import type { Registry } from '../../lab/lab.js';
import { down, parseBackend, parseNodes, up } from '../../services/index.js';
import { allUp } from '../../services/probe.js';
import { renderStatus, status, watchLines } from '../../services/status.js';
import { EnvError, UP_HINT } from '../../core/errors.js';
import { sleep } from '../../core/time.js';
import { maskText } from '../../core/urls.js';
import { holdHome, holdMachine } from '../../services/set-lock.js';
import { claimHome } from '../../services/data-folder.js';
import { parseLine } from '../../services/lines.js';
import { setPrefix } from '../set-prefix.js';

const log = (line: string) => process.stderr.write(`mqlab: ${line}\n`);

/**
 * `up` holds the set lock shared (it starts what is down, which must not be a service a lab has
 * stopped on purpose: it waits for that outage to end); `down` exclusively (it stops them).
 */
const holding = async <T>(
  config: Config,
  what: string,
  mode: 'shared' | 'exclusive',
  run: () => Promise<T>,
): Promise<T> => {
  const lock = await holdHome(config.home, { mode, what, wait: true, say: (line) => log(line) });
  try {
    return await run();
  } finally {
    lock?.release();
  }
};

export async function upCommand(config: Config, backend: string, nodes?: string, line?: string): Promise<number> {
  const chosen = parseBackend(backend);
  const asked = nodes === undefined ? undefined : parseNodes(nodes);
  const askedLine = line === undefined || line === '' ? undefined : parseLine(line);
  await holding(config, 'mqlab up', 'shared', async () => {
    // and one up of this set at a time: two at once (`mqlab up` beside `npm test`'s own) each copied the
    // Debian root and created the database, and one failed on the other's half-done work
    claimHome(config.home); // the lock lives there: a folder that is not mqlab's is refused first
    const turn = await holdMachine(path.join(config.home, 'up-lock'), 'mqlab up', log, {
      others: 'up(s) of this set',
      got: 'its turn to start the services',
    });
    try {
      await up(config, chosen, log, asked, askedLine);
    } finally {
      turn?.release();
    }
  });
  // each command as the user can type it: with the variables that name this set when they are not the defaults
  const cmd = (args: string) => `\`${setPrefix()}mqlab ${args}\``;
  process.stdout.write(
    `services are up: run ${cmd('list')} to see the labs, ${cmd('retry')} to run one, ${cmd('all')} for every lab\n`,
  );
  return 0;
}

export async function downCommand(config: Config, backend: string, volumes: boolean): Promise<number> {
  await holding(config, 'mqlab down', 'exclusive', () => down(config, parseBackend(backend), volumes, log));
  return 0;
}

export async function statusCommand(registry: Registry, config: Config, json: boolean): Promise<number> {
  const s = await status(registry, config);
  if (json) process.stdout.write(JSON.stringify(s, null, 2) + '\n');
  else process.stdout.write(renderStatus(s).join('\n') + '\n');
  if (!allUp(s.probe)) {
    if (!json) process.stderr.write(`mqlab: not every service is reachable\n  → ${UP_HINT}\n`);
    return 2;
  }
  if (s.leftFaults.length) {
    if (!json)
      process.stderr.write('mqlab: an earlier run left a fault in the cluster\n  → run `mqlab up`: it undoes it\n');
    return 2;
  }
  return 0;
}

/**
 * `status --watch`: the queues every `seconds`, in place on a terminal (cursor home, each line
 * cleared, the rest of the screen cleared); not a terminal or NO_COLOR: one plain block per
 * interval. A service that stops answering is a line of the picture, not the end. Ctrl-C: exit 0.
 */
export async function watchCommand(
  registry: Registry,
  config: Config,
  seconds: number,
  signal: AbortSignal,
): Promise<number> {
  const inPlace = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
  while (!signal.aborted) {
    const head = `mqlab status --watch  ${new Date().toLocaleTimeString('en-GB')}  every ${seconds} s  (Ctrl-C stops)`;
    let lines: string[];
    try {
      lines = [head, ...watchLines(await status(registry, config))];
    } catch (err) {
      if (!(err instanceof EnvError)) throw err;
      lines = [head, `NOT USABLE: ${maskText(err.message)}`];
    }
    if (inPlace) process.stdout.write('\x1b[H' + lines.map((l) => l + '\x1b[K').join('\n') + '\n\x1b[J');
    else process.stdout.write(lines.join('\n') + '\n\n');
    await sleep(seconds * 1000, signal).catch(() => {});
  }
  return 0;
}
