/**
 * Topology as data. The engine declares it before a run and purges the lab's queues, so every
 * run starts from known data. A queue whose arguments changed since an earlier run is deleted
 * and declared again (it belongs to the lab), instead of failing with PRECONDITION_FAILED.
 */
import { sleep } from '../core/time.js';
import type { ConfirmChannel } from 'amqplib';
import { closeChannel, type Broker } from './broker.js';

interface ExchangeSpec {
  name: string;
  type: 'direct' | 'topic' | 'fanout' | 'headers';
}

export interface QueueSpec {
  name: string;
  /** quorum unless said otherwise */
  type?: 'quorum' | 'classic';
  /** x-arguments: x-message-ttl, x-dead-letter-exchange, … */
  args?: Record<string, unknown>;
}

export interface BindingSpec {
  queue: string;
  exchange: string;
  key: string;
}

export interface PolicySpec {
  name: string;
  /** anchored regex, usually names.exact(queue) */
  pattern: string;
  definition: Record<string, unknown>;
  /** 'quorum_queues' is used where the broker knows it (3.12+), else 'queues' */
  applyTo: 'queues' | 'quorum_queues' | 'exchanges' | 'all';
  priority?: number;
}

export interface Topology {
  exchanges?: ExchangeSpec[];
  queues: QueueSpec[];
  bindings?: BindingSpec[];
}

function queueArguments(q: QueueSpec): Record<string, unknown> {
  return { 'x-queue-type': q.type ?? 'quorum', ...q.args };
}

/** `t` with the arguments `drop` names taken off the queues `queue` names (a broken variant's topology) */
export const withoutQueueArgs = (
  t: Topology,
  queue: (name: string) => boolean,
  drop: (key: string) => boolean,
): Topology => ({
  ...t,
  queues: t.queues.map((q) =>
    queue(q.name) ? { ...q, args: Object.fromEntries(Object.entries(q.args ?? {}).filter(([k]) => !drop(k))) } : q,
  ),
});

export async function declareTopology(
  broker: Broker,
  t: Topology,
  onRecreate?: (queue: string) => void,
): Promise<void> {
  const ch = await broker.newChannel();
  try {
    for (const x of t.exchanges ?? []) await ch.assertExchange(x.name, x.type, { durable: true });
    for (const q of t.queues) {
      const args = queueArguments(q);
      try {
        await ch.assertQueue(q.name, { durable: true, arguments: args });
      } catch (err) {
        if (!/PRECONDITION_FAILED|406/.test(String((err as Error).message))) throw err;
        onRecreate?.(q.name);
        const fresh = await broker.newChannel();
        await fresh.deleteQueue(q.name);
        await fresh.assertQueue(q.name, { durable: true, arguments: args });
        await closeChannel(fresh);
        return declareTopology(broker, t, onRecreate);
      }
    }
    for (const b of t.bindings ?? []) await ch.bindQueue(b.queue, b.exchange, b.key);
  } finally {
    await closeChannel(ch);
  }
}

/** Purge every queue of the topology; returns how many messages were left from an earlier run. */
export async function purgeTopology(broker: Broker, t: Topology): Promise<number> {
  const purge = async () =>
    (await eachOnChannel(broker, t.queues, async (ch, q) => (await ch.purgeQueue(q.name)).messageCount)).reduce(
      (a, b) => a + b,
      0,
    );
  let left = await purge();
  // a leftover that was expiring or dead-lettered while its queue was purged reaches the next queue after
  // that queue's purge (dead lettering is asynchronous): seen once, an earlier run's stale letter in the
  // archive lab's DLQ. So after a purge that found something, once more when such a letter has landed, until
  // none. A letter in flight lands within IN_FLIGHT_MS; one that lands in a TTL queue is purged there by the
  // next pass, so the wait is the flight's, not a TTL.
  for (let pass = 0, found = left; found > 0 && pass < 3; pass++) {
    await sleep(IN_FLIGHT_MS);
    found = await purge();
    left += found;
  }
  return left;
}

/**
 * how long a dead letter already on its way takes to land in its target queue: a whole hop (a 1 ms TTL, expiry,
 * dead-lettering, the target's enqueue, delivery to a consumer) took 124–138 ms at a load of 12–20 on 2 cores
 * (docs/labs/dead-letter-reasons.md); a letter in flight has only part of that left
 */
const IN_FLIGHT_MS = 150;

/**
 * `fn` for each item, all at once, each on a channel of its own (closed after); the results in order. A channel
 * answers one request at a time: 14 purges on one were 14 quorum commits one after the other.
 */
async function eachOnChannel<T, R>(
  broker: Broker,
  items: readonly T[],
  fn: (ch: ConfirmChannel, item: T) => Promise<R>,
): Promise<R[]> {
  return Promise.all(
    items.map(async (item) => {
      const ch = await broker.newChannel();
      try {
        return await fn(ch, item);
      } finally {
        await closeChannel(ch);
      }
    }),
  );
}
