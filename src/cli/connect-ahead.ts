/**
 * `mqlab <lab> …`: the run's connections begin as the program starts, before the CLI's own modules
 * load (commander, the commands, the engine), so the services' side of both handshakes (RabbitMQ's;
 * PostgreSQL's forked backend and SCRAM) goes on meanwhile instead of after that loading. They are
 * begun from the environment's URLs (MQLAB_*, the set's defaults): the run takes them only when its
 * own config names the same ones (src/engine/early-start.ts beginRun), and closes them otherwise. A
 * command line with URLs of its own, --help, --names or one of the lab's tools begins none.
 */
import type { Catalogue } from '../lab/lab.js';
import type { Connections } from '../engine/connections.js';

/** the words after a lab's name that make the command line no plain run of it */
const NOT_A_RUN = new Set(['-h', '--help', '--names', '--amqp-url', '--pg-url', '--mgmt-url']);

/**
 * Resolves once both connections are under way (their sockets connecting). Never rejects: whatever
 * goes wrong here, the run connects (and reports) as if nothing was begun.
 */
export async function connectAhead(catalogue: Catalogue, args: readonly string[]): Promise<Connections | null> {
  const entry = catalogue.find((e) => e.name === args[0]);
  if (!entry || args.some((a) => NOT_A_RUN.has(a.split('=')[0] ?? a))) return null;
  try {
    const [meta, { loadConfig }, { connectFor }] = await Promise.all([
      entry.load(),
      import('../core/config.js'),
      import('../engine/connections.js'),
    ]);
    if (meta.tools?.some((t) => args.includes(t.name))) return null;
    const begun = connectFor(loadConfig(), meta);
    // the clients' steps up to their sockets' connect: promise callbacks, then (postgres.js) a 0 ms
    // timer, which the loading below would hold back (it runs in promise callbacks too) until it ends
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 0));
    return begun;
  } catch {
    return null; // a bad MQLAB_* URL or namespace: the run says so itself
  }
}
