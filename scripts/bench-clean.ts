/**
 * The bench's runs leave queues, exchanges, policies and tables under their namespaces
 * (bench_c1 …, bench_all, bench_jobs_j1 …). Every helper shares one vhost: a management API that
 * lists hundreds of stale queues answers slowly for everyone, so the bench removes what it made.
 */
import { Broker } from '../src/broker/broker.js';
import { Management } from '../src/broker/management.js';
import { openDb } from '../src/db/client.js';
import { loadConfig } from '../src/core/config.js';

/** is `name` under one of the namespaces? (queue/exchange `ns.`, policy `ns-`, table `ns_`) */
export const underNamespace = (name: string, namespaces: readonly string[], sep: '.' | '-' | '_') =>
  namespaces.some((ns) => name.startsWith(ns + sep));

/** delete everything of these namespaces; returns how many resources went */
export async function dropNamespaces(namespaces: readonly string[]): Promise<number> {
  // the services the bench ran on: MQLAB_PORT_OFFSET and the MQLAB_* URLs count (an empty env here
  // cleaned the default set instead and left the runs' names behind on another)
  const config = loadConfig({}, process.env);
  const mgmt = new Management(config.mgmtUrl, config.vhost);
  const broker = await Broker.connect(config.amqpUrl);
  const { db } = await openDb(config.pgUrl, 1);
  let dropped = 0;
  try {
    const ch = await broker.newChannel();
    for (const p of (await mgmt.policies()).filter((p) => underNamespace(p.name, namespaces, '-'))) {
      await mgmt.deletePolicy(p.name);
      dropped++;
    }
    // names only: the full listing of a busy shared vhost is slow enough to time out
    const named = (kind: string) =>
      mgmt.request<{ name: string }[]>('GET', `/api/${kind}/${encodeURIComponent(config.vhost)}?columns=name`);
    for (const q of (await named('queues')).filter((q) => underNamespace(q.name, namespaces, '.'))) {
      await ch.deleteQueue(q.name);
      dropped++;
    }
    for (const x of (await named('exchanges')).filter((x) => underNamespace(x.name, namespaces, '.'))) {
      await ch.deleteExchange(x.name);
      dropped++;
    }
    await ch.close();
    const tables = await db<
      { name: string }[]
    >`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`;
    for (const { name } of tables.filter((t) => underNamespace(t.name, namespaces, '_'))) {
      await db.unsafe(`DROP TABLE IF EXISTS "${name}" CASCADE`);
      dropped++;
    }
  } finally {
    await broker.close();
    await db.end({ timeout: 1 });
  }
  return dropped;
}
