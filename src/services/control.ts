/**
 * Stop and start ONE of the services `mqlab up` started (its PostgreSQL cluster or its RabbitMQ
 * node), for labs that inject a fault into a real service. Only what mqlab itself started from this
 * data folder, on 127.0.0.1 and its own ports: a run whose URLs name anything else is refused.
 * Knows no lab. chroot and system: the process (pid file) is stopped and started as `up` does;
 * docker: `docker compose stop|start <service>` (written, not run on a machine with Docker yet).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { execa } from 'execa';
import type { Config } from '../core/config.js';
import type { OwnService, StartedAgain, Stopped } from '../lab/lab.js';
import type { Ports } from '../core/defaults.js';
import { EnvError } from '../core/errors.js';
import { maskUrl } from '../core/urls.js';
import { recordedBackend, recordedNodes } from './data-folder.js';
import { existingServiceDir, outer, type Host } from './host.js';
import { startPostgres, stopPostgres } from './postgres-cluster.js';
import { nodeMarker, nodesFor, rabbitPid, startRabbit, stopNode } from './rabbitmq-node.js';
import { pidRuns, waitGone } from './process.js';
import { COMPOSE_ARGS } from './docker.js';

export interface ServiceControl {
  stop(service: OwnService): Promise<Stopped>;
  /** start it again and wait (bounded, by probing) until it accepts connections */
  start(service: OwnService, probeReady: () => Promise<boolean>, timeoutMs: number): Promise<StartedAgain>;
}

const LOCAL = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** does `url` reach 127.0.0.1:`port` (the services of this data folder), whatever its account */
export function pointsAt(url: string, port: number): boolean {
  try {
    const u = new URL(url);
    return LOCAL.has(u.hostname) && Number(u.port) === port;
  } catch {
    return false;
  }
}

/**
 * Why this run's services cannot be stopped and started by mqlab (one line), or null when they are
 * the ones `mqlab up` started from this data folder. Pure: unit-tested.
 */
export function controlRefusal(
  recorded: string | null,
  config: Pick<Config, 'amqpUrl' | 'pgUrl' | 'mgmtUrl' | 'home'>,
  ports: Ports,
): string | null {
  if (recorded !== 'chroot' && recorded !== 'system' && recorded !== 'docker') {
    return `needs the services \`mqlab up\` started (no backend recorded in ${config.home}; this lab stops and starts them)`;
  }
  const urls: [string, string, number][] = [
    ['MQLAB_AMQP_URL', config.amqpUrl, ports.amqp],
    ['MQLAB_PG_URL', config.pgUrl, ports.postgres],
    ['MQLAB_MGMT_URL', config.mgmtUrl, ports.management],
  ];
  for (const [name, url, port] of urls) {
    if (!pointsAt(url, port))
      return `needs the services \`mqlab up\` started: ${name} is ${maskUrl(url)}, not 127.0.0.1:${port} (this lab stops and starts them)`;
  }
  return null;
}

/** controlRefusal for this run's config and data folder (what a disruptive lab needs to run) */
export const ownServicesRefusal = (config: Config): string | null =>
  controlRefusal(recordedBackend(config.home), config, config.ports);

/** a TCP connect to 127.0.0.1:port: null when it connected, else the error code (ECONNREFUSED …) */
export function tcpRefusal(port: number, timeoutMs = 2000): Promise<string | null> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    const done = (v: string | null) => (s.destroy(), resolve(v));
    s.setTimeout(timeoutMs, () => done('ETIMEDOUT'));
    s.once('connect', () => done(null));
    s.once('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
  });
}

/** what the postmaster's command line ends an argument with: -D <…>/postgres/data */
const PG_MARKER = '/postgres/data';

function postgresPid(host: Host): number | null {
  const dir = existingServiceDir(host, 'postgres');
  if (!dir) return null;
  try {
    const pid = Number(fs.readFileSync(outer(host, path.join(dir, 'data', 'postmaster.pid')), 'utf8').split('\n')[0]);
    return pid > 0 && pidRuns(pid, PG_MARKER) ? pid : null;
  } catch {
    return null;
  }
}

const portOf = (s: OwnService, ports: Ports) => (s === 'PostgreSQL' ? ports.postgres : ports.amqp);

/** the control for this run's services; throws EnvError (the refusal) when they are not mqlab's */
export function serviceControl(config: Config, hostOf: (backend: 'chroot' | 'system') => Host): ServiceControl {
  const recorded = recordedBackend(config.home);
  const refusal = ownServicesRefusal(config);
  if (refusal)
    throw new EnvError(refusal, 'run `mqlab up` and leave MQLAB_AMQP_URL, MQLAB_PG_URL and MQLAB_MGMT_URL unset');
  const ports = config.ports;
  const quiet = () => {};
  if (recorded === 'docker') return dockerControl(ports);
  const host = hostOf(recorded as 'chroot' | 'system');
  // the node the run's URLs reach: the single node, or node 1 of a cluster (the others keep running)
  const node = nodesFor(ports, recordedNodes(config.home))[0]!; // nodesFor gives at least one
  const pidOf = (s: OwnService) => (s === 'PostgreSQL' ? postgresPid(host) : rabbitPid(host, node));
  return {
    async stop(service) {
      const pid = pidOf(service);
      if (!pid) throw new EnvError(`${service} of ${config.home} is not running`, 'run `mqlab up`');
      const stopAt = Date.now();
      if (service === 'PostgreSQL') await stopPostgres(host);
      else await stopNode(host, node);
      if (!(await waitGone(pid, 60_000, service === 'PostgreSQL' ? PG_MARKER : nodeMarker(node.service))))
        throw new EnvError(`${service} (pid ${pid}) did not exit within 60 s`, 'run `mqlab down` and `mqlab up`');
      return { service, pid, stopAt, goneAt: Date.now(), refused: await tcpRefusal(portOf(service, ports)) };
    },
    async start(service, probeReady, timeoutMs) {
      const startAt = Date.now();
      let failure = (): string | null => null;
      if (service === 'PostgreSQL') await startPostgres(host, ports, quiet);
      else {
        const rabbit = await startRabbit(host, node);
        failure = () => rabbit.failure();
      }
      const readyAt = await waitReady(service, probeReady, failure, startAt + timeoutMs);
      return { service, startAt, readyAt, pid: pidOf(service) };
    },
  };
}

/** probe until ready (every 200 ms), the process died, or the deadline: bounded */
async function waitReady(
  service: OwnService,
  probeReady: () => Promise<boolean>,
  failure: () => string | null,
  deadline: number,
): Promise<number> {
  for (;;) {
    if (await probeReady().catch(() => false)) return Date.now();
    const died = failure();
    if (died) throw new EnvError(died, 'run `mqlab up` to start it again');
    if (Date.now() > deadline)
      throw new EnvError(`${service} did not accept connections again in time`, 'run `mqlab up` to start it again');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** docker compose: stop/start one service of the mqlab project (untested: no Docker engine here) */
function dockerControl(ports: Ports): ServiceControl {
  const name = (s: OwnService) => (s === 'PostgreSQL' ? 'postgres' : 'rabbitmq');
  const compose = async (args: string[]) => {
    const r = await execa('docker', [...COMPOSE_ARGS, ...args], { reject: false, timeout: 120_000 });
    if (r.exitCode !== 0)
      throw new EnvError(
        `docker compose ${args.join(' ')} failed: ${r.stderr.trim().split('\n').pop()}`,
        'run `mqlab up`',
      );
    return r.stdout.trim();
  };
  return {
    async stop(service) {
      const stopAt = Date.now();
      await compose(['stop', name(service)]);
      const running = await compose(['ps', '--status', 'running', '-q', name(service)]);
      if (running)
        throw new EnvError(`docker compose stop ${name(service)}: the container still runs`, 'run `mqlab up`');
      return { service, pid: null, stopAt, goneAt: Date.now(), refused: await tcpRefusal(portOf(service, ports)) };
    },
    async start(service, probeReady, timeoutMs) {
      const startAt = Date.now();
      await compose(['start', name(service)]);
      return {
        service,
        startAt,
        readyAt: await waitReady(service, probeReady, () => null, startAt + timeoutMs),
        pid: null,
      };
    },
  };
}
