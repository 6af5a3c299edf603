/**
 * Queue depths over a run, for the --json report, the --html timeline and the bench's steps: the
 * lab's queues (from its topology) sampled at a modest interval, two ways:
 * - `ready` at each tick: passive queue.declare on a connection of its own: the ready messages at that moment;
 * - about once a second, each queue's own counters and record (src/broker/broker-state.ts: messages,
 *   ready, unacked and held of one answer, the policy in force) and the bindings from the lab's
 *   exchanges — not the statistics, which pass through the metrics collector (they lagged 1–3 s
 *   here: consumer-crash showed 0 for 2.4 s while 3 were ready; a policy 2 s after it was set).
 * Sampling never fails a lab: a sample that could not be taken is left out and counted.
 */
import type { Channel } from 'amqplib';
import { Broker } from './broker.js';
import type { Management } from './management.js';
import { readOnce, type LabObjects } from './broker-state.js';
import type { BindingAt, QueueCounts } from '../core/checkpoint-view.js';

export interface DepthSample {
  /** wall-clock ISO time the answers arrived */
  timestamp: string;
  /** ready messages per queue (same order as DepthSeries.queues), null when the queue did not exist */
  ready: (number | null)[];
  /**
   * the management API's messages (ready + unacked + held) per queue, null when it did not answer;
   * asked once a second only (the broker refreshes them no more often), so absent in other samples
   */
  messages?: (number | null)[];
  /**
   * in the same samples as `messages`, from the same answer (the queue's own counters): ready,
   * unacked (delivered, not settled) and held (messages − ready − unacked: at-least-once dead letters)
   */
  readyNow?: (number | null)[];
  unacked?: (number | null)[];
  held?: (number | null)[];
  /** in the same samples as `messages`, from the queue's record: the policy in force per queue (null: no answer) */
  policy?: (QueuePolicy | null)[];
  /** in the same samples as `messages`: the bindings from the lab's exchanges to queues (null: no answer) */
  bindings?: BindingAt[] | null;
}

/**
 * A queue's policy as the management API reports it: the policy's name (null: none applies), the
 * operator policy's when one applies, and the keys both apply together (effective_policy_definition,
 * `{}` without either). Measured with a classic and a quorum queue and one policy on RabbitMQ 4.3.6
 * and 3.10.8: both lines return `policy` (null without one), `operator_policy` (null) and
 * `effective_policy_definition` (`{}` without one) for both queue types; after a policy was set or
 * cleared the answer changed 2.0–2.3 s later on both (the statistics' refresh, not the policy's).
 */
export interface QueuePolicy {
  name: string | null;
  operator?: string;
  definition: Record<string, unknown>;
}

export interface DepthSeries {
  intervalMs: number;
  /** how the samples were taken */
  method: { ready: string; messages: string };
  queues: string[];
  samples: DepthSample[];
  /** samples that failed (connection lost, broker busy) */
  missed: number;
}

export const DEPTH_INTERVAL_MS = 250;
/** how the samples are taken, as the --html page's note says it */
export const DEPTH_METHOD = {
  ready: 'queue.declare passive (now)',
  messages: 'management API: each queue’s own counters and record (one answer per queue, about once a second)',
};
/** the management API every 4th sample: about once a second, as often as it refreshes */
const MGMT_EVERY = 4;

/** the sampler's own connection, opened early (while the lab is set up); null when it cannot connect */
export const samplerConnection = (amqpUrl: string): Promise<Broker | null> => Broker.connect(amqpUrl).catch(() => null);

/** start sampling now; stop() takes one last sample, closes the connection and returns the series */
export function sampleDepths(
  connection: Promise<Broker | null>,
  mgmt: Management,
  { queues, exchanges }: { queues: string[]; exchanges: readonly string[] },
  intervalMs = DEPTH_INTERVAL_MS,
  onSample?: (sample: DepthSample) => void,
) {
  const series: DepthSeries = { intervalMs, method: DEPTH_METHOD, queues, samples: [], missed: 0 };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const broker = connection;
  let tick = 0;
  let channel: Channel | null = null;

  // a passive declare of a missing queue closes its channel: open another for the next queue
  const readyOf = async (b: Broker, queue: string): Promise<number | null> => {
    channel ??= await b.newChannel();
    try {
      return (await channel.checkQueue(queue)).messageCount;
    } catch (err) {
      channel = null;
      if ((err as { code?: number }).code === 404) return null;
      throw err;
    }
  };
  const once = async (withStats = false) => {
    const b = await broker;
    if (!b) return void (series.missed += 1);
    try {
      const stats = tick++ % MGMT_EVERY === 0 || withStats ? managementCounts(mgmt, { queues, exchanges }) : undefined;
      const ready: (number | null)[] = [];
      for (const q of queues) ready.push(await readyOf(b, q));
      const counts = await stats;
      const sample: DepthSample = {
        timestamp: new Date().toISOString(),
        ready,
        ...(counts ? current(counts, ready) : {}),
      };
      series.samples.push(sample);
      onSample?.(sample);
    } catch {
      series.missed += 1;
    }
  };
  // one sample at a time: the next starts an interval after the previous finished
  let inFlight: Promise<void> = Promise.resolve();
  const loop = () => {
    inFlight = once().then(() => {
      if (!stopped) timer = setTimeout(loop, intervalMs);
    });
  };
  if (queues.length > 0) loop();

  return {
    /** a sample now (a checkpoint wants the counts of this moment), after any in flight */
    async now(): Promise<void> {
      if (stopped || queues.length === 0) return;
      await inFlight;
      await once(true);
    },
    async stop(): Promise<DepthSeries> {
      stopped = true;
      if (queues.length === 0) {
        await (await broker)?.close();
        return series;
      }
      clearTimeout(timer);
      await inFlight;
      await once();
      await (await broker)?.close();
      return series;
    },
  };
}

/**
 * Each queue's own counters and record (messages, ready, unacked, held, policy: one answer per
 * queue, src/broker/broker-state.ts) and the bindings from the lab's exchanges. null where the
 * broker did not answer.
 */
async function managementCounts(
  mgmt: Management,
  lab: LabObjects,
): Promise<Required<Pick<DepthSample, 'messages' | 'readyNow' | 'unacked' | 'held' | 'policy' | 'bindings'>>> {
  const { queues, broker } = await readOnce(mgmt, lab);
  const known = (q: QueueCounts) => q.ready !== null && q.unacked !== null && q.held !== null;
  return {
    messages: queues.map((q) => (known(q) ? q.ready! + q.unacked! + q.held! : null)),
    readyNow: queues.map((q) => q.ready),
    unacked: queues.map((q) => q.unacked),
    held: queues.map((q) => q.held),
    policy: broker.policies,
    bindings: broker.bindings,
  };
}

/**
 * the counters checked against ready now (the declares of the same sample): a queue whose counters'
 * ready is another is a tick behind — its ready is now's, its unacked and held unknown (null)
 */
function current<T extends { readyNow: (number | null)[]; unacked: (number | null)[]; held: (number | null)[] }>(
  counts: T,
  ready: (number | null)[],
): T {
  const behind = (i: number) => counts.readyNow[i] !== ready[i];
  return {
    ...counts,
    readyNow: counts.readyNow.map((r, i) => (behind(i) ? (ready[i] ?? null) : r)),
    unacked: counts.unacked.map((u, i) => (behind(i) ? null : u)),
    held: counts.held.map((h, i) => (behind(i) ? null : h)),
  };
}
