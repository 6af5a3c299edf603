/** order-timeout's metadata: cheap to import (no amqplib/postgres/lab code). */
import type { LabEntry } from '../../src/lab.js';
import { UsageError } from '../../src/errors.js';

/**
 * min 500: the margin for a late close is one delay, and the checks reach the consumer one after
 * another (measured on a loaded 2-core machine: up to 335 ms after the deadline with 400 ms delays)
 */
export const DELAY_MS = { default: 1000, min: 500, max: 60_000 };

/** --delay-ms: the order's time to pay, and the check queue's TTL */
export function parseDelayMs(raw: string): number {
  const v = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!(v >= DELAY_MS.min && v <= DELAY_MS.max)) {
    throw new UsageError(`--delay-ms must be a whole number of milliseconds from ${DELAY_MS.min} to ${DELAY_MS.max}, got '${raw}'`);
  }
  return v;
}

export const meta = {
  name: 'order-timeout',
  title: 'a delayed check closes only an unpaid order; a sweeper finds the lost check',
  proves:
    'Six orders, each with a deadline and a pending task, and a check message through a TTL delay queue. The consumer ' +
    "re-reads the order and closes it only with UPDATE … WHERE status='CREATED' AND deadline <= now(): the orders " +
    'paid before or during their check stay PAID (the late payment lands between the check\'s read and its UPDATE), ' +
    'a check delivered twice closes once, no order closes before its deadline (database timestamps; an early check ' +
    'after a deadline extension changes nothing), and a sweeper over the pending-task table closes the order whose ' +
    'check message was taken out of the delay queue.',
  options: [{ flags: '--delay-ms <ms>', description: "each order's time to pay and the check's TTL", default: DELAY_MS.default, parse: parseDelayMs }],
  checkpoints: ['after-read'],
  // the checks' TTL, then the extended order's second delay before the sweeper
  floorMs: 2 * DELAY_MS.default,
  load: () => import('./lab.js'),
} satisfies LabEntry & { checkpoints: string[] };
