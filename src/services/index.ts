/** mqlab up / down: pick a backend, start or stop it, and wait until the app can connect. */
import fs from 'node:fs';
import type { Config } from '../config.js';
import { EnvError, UsageError } from '../errors.js';
import { PORTS } from '../defaults.js';
import { maskUrl } from '../urls.js';
import { dockerAvailability, dockerDown, dockerRunning, dockerUp } from './docker.js';
import { localRunning, localStart, localStop } from './local.js';
import { allUp, probe, waitForServices, type Probe } from './probe.js';

export type Backend = 'auto' | 'docker' | 'local';

export function parseBackend(raw: string): Backend {
  if (raw === 'auto' || raw === 'docker' || raw === 'local') return raw;
  throw new UsageError(`unknown backend '${raw}'`, 'use --backend auto, docker or local');
}

export async function up(config: Config, backend: Backend, log: (line: string) => void): Promise<Probe> {
  const before = await probe(config);
  if (allUp(before)) {
    log('services are already up');
    report(config, before, log);
    return before;
  }
  const docker = backend === 'auto' ? await dockerAvailability() : null;
  const chosen = docker ? (docker.use ? 'docker' : 'local') : backend;
  log(`backend: ${chosen}${docker ? ` (${docker.why})` : ''}`);
  let failure = (): string | null => null;
  if (chosen === 'docker') await dockerUp(log);
  else failure = await localStart(config.home, log);
  let shown = 0;
  const ready = await waitForServices(config, 180_000, (p, elapsed) => {
    const died = failure();
    if (died) throw new EnvError(died, `see ${config.home}/rabbitmq/log/; is another program using port ${PORTS.amqp}, ${PORTS.management} or ${PORTS.erlangDist}?`);
    if (elapsed > 60_000 && /credentials refused/.test(`${p.amqp.error}`)) {
      throw new EnvError(`${p.amqp.error} although the broker answers`, `another broker may hold port ${PORTS.amqp}: stop it, or point MQLAB_AMQP_URL at it`);
    }
    const s = Math.floor(elapsed / 5000);
    if (s > shown) {
      shown = s;
      const pending = [p.amqp.ok ? '' : 'RabbitMQ', p.mgmt.ok ? '' : 'management API', p.pg.ok ? '' : 'PostgreSQL'].filter(Boolean);
      log(`waiting for ${pending.join(', ')} to accept the lab accounts… ${Math.round(elapsed / 1000)} s`);
    }
  });
  report(config, ready, log);
  return ready;
}

function report(config: Config, p: Probe, log: (line: string) => void) {
  log(`RabbitMQ ${p.amqp.version} ready at ${maskUrl(config.amqpUrl)} (management ${maskUrl(config.mgmtUrl)})`);
  log(`PostgreSQL ${p.pg.version} ready at ${maskUrl(config.pgUrl)}`);
}

export async function down(config: Config, backend: Backend, volumes: boolean, log: (line: string) => void): Promise<void> {
  const chosen =
    backend !== 'auto' ? backend : localRunning(config.home) || fs.existsSync(config.home) ? 'local' : (await dockerRunning()) ? 'docker' : 'local';
  if (chosen === 'docker') return dockerDown(volumes, log);
  if (volumes) log(`deleting ${config.home}: the local RabbitMQ node's and PostgreSQL cluster's data (all queues and tables)`);
  await localStop(config.home, volumes, log);
}
