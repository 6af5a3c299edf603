/**
 * Queue depths over a run, for the --json report and the --html timeline: the lab's queues (from
 * its topology) sampled at a modest interval, two ways at each tick:
 * - `ready`: passive queue.declare on a connection of its own: the ready messages at that moment;
 * - `messages`: the management API's count, which also holds unacked and held (at-least-once
 *   dead-lettering) messages, but passes through the quorum tick and the metrics collector: it
 *   lagged 1–3 s here even with both at 1 s (consumer-crash: 0 for 2.4 s while 3 were ready).
 * Sampling never fails a lab: a sample that could not be taken is left out and counted.
 */
import type { Channel } from 'amqplib';
import { Broker } from './broker.js';
import type { Management } from './management.js';

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
  /** in the same samples as `messages`, from the same answer: unacked (delivered, not settled) and held (messages_dlx) */
  unacked?: (number | null)[];
  held?: (number | null)[];
  /** in the same samples as `messages`, from the same answer: the policy in effect per queue (null: no answer) */
  policy?: (QueuePolicy | null)[];
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
/** the management API every 4th sample: about once a second, as often as it refreshes */
const MGMT_EVERY = 4;

/** the sampler's own connection, opened early (while the lab is set up); null when it cannot connect */
export const samplerConnection = (amqpUrl: string): Promise<Broker | null> => Broker.connect(amqpUrl).catch(() => null);

/** start sampling now; stop() takes one last sample, closes the connection and returns the series */
export function sampleDepths(
  connection: Promise<Broker | null>,
  mgmt: Management,
  queues: string[],
  intervalMs = DEPTH_INTERVAL_MS,
  onSample?: (sample: DepthSample) => void,
) {
  const method = {
    ready: 'queue.declare passive (now)',
    messages: 'management API (refreshed by the broker, lags 1–3 s)',
  };
  const series: DepthSeries = { intervalMs, method, queues, samples: [], missed: 0 };
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
      const stats = tick++ % MGMT_EVERY === 0 || withStats ? managementCounts(mgmt, queues) : undefined;
      const ready: (number | null)[] = [];
      for (const q of queues) ready.push(await readyOf(b, q));
      const counts = await stats;
      const sample: DepthSample = { timestamp: new Date().toISOString(), ready, ...(counts ?? {}) };
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
 * The management API's count per queue: one small request each, in parallel (listing the vhost's
 * queues took 3 s with ~360 queues of other namespaces; one queue ~50 ms). null where it did not answer.
 */
async function managementCounts(
  mgmt: Management,
  queues: string[],
): Promise<Required<Pick<DepthSample, 'messages' | 'unacked' | 'held' | 'policy'>>> {
  const v = encodeURIComponent(mgmt.vhost);
  type Row = {
    messages?: number;
    messages_unacknowledged?: number;
    messages_dlx?: number;
    policy?: string | null;
    operator_policy?: string | null;
    effective_policy_definition?: Record<string, unknown> | unknown[];
  } | null;
  const rows = await Promise.all(
    queues.map((q) =>
      mgmt
        .request<Row>(
          'GET',
          `/api/queues/${v}/${encodeURIComponent(q)}?columns=messages,messages_unacknowledged,messages_dlx,policy,operator_policy,effective_policy_definition`,
        )
        .catch(() => null),
    ),
  );
  // messages_dlx: quorum queues only (read in the source: rabbit_quorum_queue.erl, v3.10.8 and v4.3.5); 0 elsewhere
  return {
    messages: rows.map((r) => (r ? (r.messages ?? 0) : null)),
    unacked: rows.map((r) => (r ? (r.messages_unacknowledged ?? 0) : null)),
    held: rows.map((r) => (r ? (r.messages_dlx ?? 0) : null)),
    policy: rows.map((r) => (r ? policyOf(r) : null)),
  };
}

/** the row's policy fields as a QueuePolicy (a definition that is not an object counts as none) */
function policyOf(r: {
  policy?: string | null;
  operator_policy?: string | null;
  effective_policy_definition?: Record<string, unknown> | unknown[];
}): QueuePolicy {
  const d = r.effective_policy_definition;
  return {
    name: r.policy || null,
    ...(r.operator_policy ? { operator: r.operator_policy } : {}),
    definition: d && !Array.isArray(d) ? d : {},
  };
}
