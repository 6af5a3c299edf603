/**
 * Topology as data. The engine declares it before a run and purges the lab's queues, so every
 * run starts from known data. A queue whose arguments changed since an earlier run is deleted
 * and declared again (it belongs to the lab), instead of failing with PRECONDITION_FAILED.
 */
import { sleep } from '../time.js';
import { closeChannel, type Broker } from './broker.js';

export interface ExchangeSpec {
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

export function queueArguments(q: QueueSpec): Record<string, unknown> {
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
  const ch = await broker.newChannel();
  const purge = async () => {
    let n = 0;
    for (const q of t.queues) n += (await ch.purgeQueue(q.name)).messageCount;
    return n;
  };
  try {
    let left = await purge();
    // a leftover that was expiring or dead-lettered while its queue was purged reaches the next queue after
    // that queue's purge (dead lettering is asynchronous): seen once, an earlier run's stale letter in the
    // archive lab's DLQ. So after a purge that found something, once more after the longest TTL, until none
    for (let pass = 0, found = left; found > 0 && pass < 3; pass++) {
      await sleep(longestTtlMs(t) + 100);
      found = await purge();
      left += found;
    }
    return left;
  } finally {
    await closeChannel(ch);
  }
}

/** the longest x-message-ttl among the topology's queues (0: none) */
function longestTtlMs(t: Topology): number {
  return Math.max(0, ...t.queues.map((q) => Number(q.args?.['x-message-ttl'] ?? 0)).filter(Number.isFinite));
}
