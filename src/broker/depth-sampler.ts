/**
 * Queue depths over a run, for the --json report and the --html timeline: the lab's queues (from
 * its topology) sampled at a modest interval on a connection of their own, by passive
 * queue.declare, whose message count is the queue's ready messages at that moment.
 * Not the management API: its statistics pass through the quorum tick and the metrics collector
 * and lagged 1–3 s here even with both at 1 s (consumer-crash showed 0 ready for 2.4 s while 3
 * were waiting), which would draw the wrong picture of runs that last a few seconds.
 * Sampling never fails a lab: a sample that could not be taken is left out and counted.
 */
import type { Channel } from 'amqplib';
import { Broker } from './broker.js';

export interface DepthSample {
  /** wall-clock ISO time the answers arrived */
  timestamp: string;
  /** ready messages per queue (same order as DepthSeries.queues), null when the queue did not exist */
  ready: (number | null)[];
}

export interface DepthSeries {
  intervalMs: number;
  /** how the samples were taken */
  method: 'queue.declare passive (ready messages)';
  queues: string[];
  samples: DepthSample[];
  /** samples that failed (connection lost, broker busy) */
  missed: number;
}

export const DEPTH_INTERVAL_MS = 250;

/** start sampling now; stop() takes one last sample, closes the connection and returns the series */
export function sampleDepths(amqpUrl: string, queues: string[], intervalMs = DEPTH_INTERVAL_MS) {
  const series: DepthSeries = { intervalMs, method: 'queue.declare passive (ready messages)', queues, samples: [], missed: 0 };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const broker = queues.length ? Broker.connect(amqpUrl).catch(() => null) : Promise.resolve(null);
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
  const once = async () => {
    const b = await broker;
    if (!b) return void (series.missed += 1);
    try {
      const ready: (number | null)[] = [];
      for (const q of queues) ready.push(await readyOf(b, q));
      series.samples.push({ timestamp: new Date().toISOString(), ready });
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
    async stop(): Promise<DepthSeries> {
      if (queues.length === 0) return series;
      stopped = true;
      clearTimeout(timer);
      await inFlight;
      await once();
      await (await broker)?.close();
      return series;
    },
  };
}
