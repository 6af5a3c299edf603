/**
 * crash-loop's queues (--namespace prefixes them) and its topology: a work queue with a small
 * delivery limit whose poison pill kills every consumer process, a queue for the nack contrast with
 * the same limit, a queue whose native delayed retry (4.3, type failed) delays a crash's redelivery,
 * and the dead-letter queue all three dead-letter into.
 */
import type { Names, QueueSpec, Topology } from '../../src/kit/index.js';

/** x-delivery-limit of the three source queues: a message is dead-lettered after LIMIT + 1 deliveries */
export const LIMIT = 2;
/**
 * x-delayed-retry-min of the delayed queue (no -max: it defaults to the min). The broken variant
 * without it measures the crash's own redelivery path (the child's exit, the connection's close, the
 * return): 1.1 s at a load of 41, so 1 s could not tell the two apart there
 */
export const DELAY_MS = 2000;

export const names = (n: Names) => ({
  work: n.q('crash-loop.work'),
  nack: n.q('crash-loop.nack'),
  delayed: n.q('crash-loop.delayed'),
  dead: n.q('crash-loop.dead'),
});
export type CrashLoopNames = ReturnType<typeof names>;

const limited = (name: string, dead: string, extra: Record<string, unknown> = {}): QueueSpec => ({
  name,
  args: { 'x-delivery-limit': LIMIT, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': dead, ...extra },
});

export function topology(n: Names): Topology {
  const name = names(n);
  return {
    queues: [
      limited(name.work, name.dead),
      limited(name.nack, name.dead),
      limited(name.delayed, name.dead, { 'x-delayed-retry-type': 'failed', 'x-delayed-retry-min': DELAY_MS }),
      { name: name.dead },
    ],
  };
}
