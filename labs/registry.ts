/**
 * Every lab, in the order `mqlab all` runs them. A new lab is one folder under labs/ plus one
 * entry here. Entries are metadata only; the lab's code loads when the lab runs.
 */
import type { LabEntry } from '../src/lab.js';

export const registry: LabEntry[] = [
  {
    name: 'retry',
    title: 'limited delayed retry and poison-message isolation',
    proves:
      'A transient failure is retried through a 500 ms TTL delay queue with an attempt header (1, 2, 3), ' +
      'the retry copy is confirmed before the original is acked, the poison message is rejected without ' +
      'requeue into the DLQ with an x-death entry of reason rejected, and exactly two business rows exist.',
    floorMs: 1000,
    load: () => import('./retry/lab.js'),
  },
  {
    name: 'dead-letter-reasons',
    title: 'every way a message dies: expired, maxlen, rejected, delivery_limit',
    proves:
      'One message per path dies into its own DLQ: queue TTL and per-message expiration give reason expired ' +
      '(the dead letter loses its expiration property, kept as x-death original-expiration), x-max-length with ' +
      'drop-head gives maxlen for the oldest message, reject(requeue=false) gives rejected, repeated ' +
      'reject(requeue=true) past x-delivery-limit gives delivery_limit; each x-death entry (reason, queue, count) ' +
      'and the x-first-death-* (and, from 3.13, x-last-death-*) headers match the broker version, and a message ' +
      'that dies twice on the same (queue, reason) shows count 1 then 2.',
    floorMs: 150,
    load: () => import('./dead-letter-reasons/lab.js'),
  },
];

export function findLab(name: string): LabEntry | undefined {
  return registry.find((l) => l.name === name);
}
