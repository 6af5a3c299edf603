/** Can we reach each service as the app (and the admin, for the management API)? */
import { Broker } from '../broker/broker.js';
import { Management } from '../broker/management.js';
import { openDb } from '../db/client.js';
import type { Config } from '../core/config.js';
import { sleep } from '../core/time.js';
import { EnvError } from '../core/errors.js';
import { LOGS_HINT } from './docker.js';
import { text } from '../core/text.js';

export interface Probe {
  amqp: { ok: boolean; error?: string; product?: string; version?: string; platform?: string };
  mgmt: { ok: boolean; error?: string; erlang?: string };
  pg: { ok: boolean; error?: string; version?: string };
}

export async function probe(config: Config): Promise<Probe> {
  const [amqp, mgmt, pg] = await Promise.all([probeAmqp(config), probeMgmt(config), probePg(config)]);
  return { amqp, mgmt, pg };
}

const oneLine = (err: unknown) => (err instanceof EnvError ? err.message : String((err as Error)?.message ?? err));

async function probeAmqp(config: Config): Promise<Probe['amqp']> {
  try {
    const b = await Broker.connect(config.amqpUrl);
    const platform = text((b.connection.connection.serverProperties as unknown as Record<string, unknown>).platform);
    await b.close();
    return { ok: true, product: b.product, version: b.version, platform };
  } catch (err) {
    return { ok: false, error: oneLine(err) };
  }
}

async function probeMgmt(config: Config): Promise<Probe['mgmt']> {
  try {
    const o = await new Management(config.mgmtUrl, config.vhost).overview();
    return { ok: true, erlang: o.erlang_version };
  } catch (err) {
    return { ok: false, error: oneLine(err) };
  }
}

async function probePg(config: Config): Promise<Probe['pg']> {
  try {
    const { db, version } = await openDb(config.pgUrl, 1);
    await db.end({ timeout: 1 });
    return { ok: true, version };
  } catch (err) {
    return { ok: false, error: oneLine(err) };
  }
}

export const allUp = (p: Probe) => p.amqp.ok && p.mgmt.ok && p.pg.ok;

/** wait until the app can connect to both services and the admin to the management API */
export async function waitForServices(
  config: Config,
  timeoutMs: number,
  onWait?: (p: Probe, elapsedMs: number) => void,
): Promise<Probe> {
  const start = Date.now();
  for (;;) {
    const p = await probe(config);
    if (allUp(p)) return p;
    const elapsed = Date.now() - start;
    if (elapsed > timeoutMs) {
      const failing = [p.amqp, p.mgmt, p.pg].filter((s) => !s.ok).map((s) => s.error);
      throw new EnvError(
        `services not ready after ${Math.round(elapsed / 1000)} s: ${failing.join('; ')}`,
        `look at the logs under ${config.home} (or \`${LOGS_HINT}\`), then run \`mqlab up\` again`,
      );
    }
    onWait?.(p, elapsed);
    await sleep(300);
  }
}
