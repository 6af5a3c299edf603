/**
 * TEST ONLY: crash-loop's broken variants (declared in faults.ts; MQLAB_FAULT=crash-loop:<variant>, src/fault.ts): the seams that
 * apply them. lab.ts reads as the correct experiment.
 */
import type { LabContext } from '../../src/lab.js';
import type { Fault } from './faults.js';
import type { Topology } from '../../src/broker/topology.js';
import { declareTopology } from '../../src/broker/topology.js';
import { readCount, type Count } from '../../src/broker/counts.js';

export const variants = [
  {
    name: 'nack-instead-of-crash',
    breaks: 'the consumer process nacks (requeue) and exits 0 instead of dying',
    fails: ['crashExits', 'deliveriesUntilDeadLetter', 'deadLetterReason', 'deliveryCounts'],
  },
  {
    name: 'no-delivery-limit',
    breaks: 'the work and nack queues are declared without x-delivery-limit',
    fails: ['deliveriesUntilDeadLetter', 'deadLetterReason', 'deadLetterDeliveryCount'],
  },
  {
    name: 'no-delayed-retry',
    breaks: 'the delayed queue is declared without x-delayed-retry-*',
    fails: ['crashRedeliveryDelayedMs'],
  },
  {
    name: 'count-missing-as-zero',
    breaks: 'an absent x-delivery-count / x-acquired-count is recorded as 0',
    fails: ['deliveryCounts', 'acquiredCounts'],
  },
  { name: 'reject-for-nack', breaks: 'the nack loop returns with reject(requeue=true)', fails: ['nackLoop'] },
] as const;

const without = (t: Topology, queue: (name: string) => boolean, arg: (key: string) => boolean): Topology => ({
  ...t,
  queues: t.queues.map((q) =>
    queue(q.name) ? { ...q, args: Object.fromEntries(Object.entries(q.args ?? {}).filter(([k]) => !arg(k))) } : q,
  ),
});

/** the topology a broken variant declares instead of the lab's (declared again over the engine's) */
export async function declareBroken(
  ctx: LabContext<unknown, Fault>,
  t: Topology,
  x: { work: string; nack: string; delayed: string },
): Promise<void> {
  let broken = t;
  if (ctx.fault('no-delivery-limit'))
    broken = without(
      broken,
      (q) => q === x.work || q === x.nack,
      (k) => k === 'x-delivery-limit',
    );
  if (ctx.fault('no-delayed-retry'))
    broken = without(
      broken,
      (q) => q === x.delayed,
      (k) => k.startsWith('x-delayed-retry'),
    );
  if (broken !== t) await declareTopology(ctx.broker, broken);
}

/** the header reader: as the broker sent it, or (broken) an absent header read as 0 */
export const countReader =
  (ctx: LabContext<unknown, Fault>) =>
  (v: unknown): Count => {
    const c = readCount(v);
    return c === 'absent' && ctx.fault('count-missing-as-zero') ? 0 : c;
  };

/** how the nack loop hands the message back */
export const nackLoopReturn = (ctx: LabContext<unknown, Fault>) => (ctx.fault('reject-for-nack') ? 'reject' : 'nack');
