/**
 * Every port, account and name that `mqlab up` provisions, in one place.
 * compose.yaml and config/ repeat these literally; src/core/defaults.test.ts keeps them in step.
 * The ports sit beside the usual ones (5672, 15672, 5432) so a system RabbitMQ or
 * PostgreSQL on the same machine is never touched.
 *
 * A second set of services runs side by side with MQLAB_PORT_OFFSET=N (every port + N) and its
 * own MQLAB_HOME; the default URLs follow the offset, so tests, bench and the CLI reach that set.
 */
import { UsageError } from './errors.js';

export const BASE_PORTS = {
  amqp: 5772,
  management: 15772,
  postgres: 5532,
  /** mqlab's own nodes only: Erlang distribution and the private epmd of the node */
  erlangDist: 25772,
  epmd: 4469,
} as const;

export type Ports = { readonly [K in keyof typeof BASE_PORTS]: number };

/** MQLAB_PORT_OFFSET: 0 (default) to 30000, added to every port */
export function portOffset(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.MQLAB_PORT_OFFSET ?? '';
  if (raw === '') return 0;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN; // Number() alone took 0x190, ' 400' and 4e2 for 400
  if (!Number.isInteger(n) || n < 0 || n > 30000)
    throw new UsageError(`invalid MQLAB_PORT_OFFSET '${raw}'`, 'use a whole number from 0 to 30000, for example 100');
  return n;
}

export function portsFor(offset: number): Ports {
  const out = {} as Record<keyof typeof BASE_PORTS, number>;
  for (const k of Object.keys(BASE_PORTS) as (keyof typeof BASE_PORTS)[]) out[k] = BASE_PORTS[k] + offset;
  return out;
}

/** the ports without any offset (compose.yaml's) */
export const PORTS: Ports = BASE_PORTS;

export const ACCOUNTS = {
  vhost: 'lab',
  app: { user: 'app', password: 'app-lab-only' },
  /**
   * management API only: policies and queue statistics (tags policymaker,monitoring; vhost lab). Its
   * password on mqlab's own nodes is the data folder's random secret (src/account-secrets.ts); this
   * fixed one is Docker's (config/rabbitmq/definitions.json)
   */
  admin: { user: 'mqlab-admin', password: 'admin-lab-only' },
  database: 'lab',
  schema: 'lab',
  /** the superuser's password on mqlab's own clusters is the data folder's random secret; this fixed one is Docker's */
  pgSuperuser: { user: 'postgres', password: 'postgres-lab-only' },
} as const;

/** `admin`: the management account's password (the data folder's secret: account-secrets.ts adminPassword) */
export function urlsFor(ports: Ports, admin: string = ACCOUNTS.admin.password) {
  return {
    amqp: `amqp://${ACCOUNTS.app.user}:${ACCOUNTS.app.password}@127.0.0.1:${ports.amqp}/${ACCOUNTS.vhost}`,
    pg: `postgres://${ACCOUNTS.app.user}:${ACCOUNTS.app.password}@127.0.0.1:${ports.postgres}/${ACCOUNTS.database}`,
    mgmt: `http://${ACCOUNTS.admin.user}:${encodeURIComponent(admin)}@127.0.0.1:${ports.management}`,
  } as const;
}

/** the URLs of the default ports (no offset) */
export const DEFAULT_URLS = urlsFor(PORTS);

/** `mqlab up --nodes N`: a cluster of at most this many RabbitMQ nodes */
export const MAX_NODES = 3;
/** node i (1-based) of a cluster listens on the ports of node 1 plus (i-1) × this; epmd is shared */
const NODE_PORT_STEP = 10;

/**
 * The ports of cluster node `i` (1-based). Node 1 keeps the set's own ports, so every default URL
 * (and every lab) reaches node 1 of a cluster exactly as it reaches a single node; nodes 2 and 3
 * add 10 and 20 to AMQP, management and distribution. They share one epmd (that is how Erlang
 * nodes on one host find each other) and one PostgreSQL.
 */
export function nodePorts(ports: Ports, i: number): Ports {
  const step = (i - 1) * NODE_PORT_STEP;
  return {
    ...ports,
    amqp: ports.amqp + step,
    management: ports.management + step,
    erlangDist: ports.erlangDist + step,
  };
}

/**
 * Cluster node `i`'s own loopback address (1-based), for its Erlang distribution only (AMQP and
 * management stay on 127.0.0.1): 127.<offset ÷ 256>.<offset mod 256>.<10 + i>, so two sets on one
 * machine (different offsets) never share one, and links between a set's nodes can be cut by address
 * (src/services/link-cut.ts). Offset 0: 127.0.0.11, .12, .13.
 */
export function nodeAddress(ports: Ports, i: number): string {
  const offset = ports.amqp - BASE_PORTS.amqp;
  return `127.${offset >> 8}.${offset & 255}.${10 + i}`;
}

/**
 * The Erlang failure detector of mqlab's cluster nodes (kernel net_ticktime, seconds; Erlang's
 * default is 60): a peer silent for 1 to 1.25 × this is declared down (nodedown), so a cut or a
 * frozen node is seen by the others' distribution within ~12.5 s, not ~75 s. Quorum queues decide
 * sooner: Ra's own detector (aten: a heartbeat every 100 ms) calls an election within seconds.
 */
export const NET_TICKTIME_S = 10;

/** the private Erlang node name of cluster node `i` (1-based), a long name on its address; a single node is `mqlab@localhost` */
export const clusterNodeName = (ports: Ports, i: number) => `mqlab-c${i}@${nodeAddress(ports, i)}`;
export const SINGLE_NODE_NAME = 'mqlab@localhost';
