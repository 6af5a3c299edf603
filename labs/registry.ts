/**
 * Every lab, in the order `mqlab all` runs them. A new lab is one folder under labs/ plus one
 * entry here. Entries are metadata only; the lab's code loads when the lab runs.
 */
import type { LabEntry } from '../src/lab.js';
import { ladderFloorMs } from './retry-ladder/backoff.js';
import { DEFAULTS as LADDER_DEFAULTS, ladderFlags } from './retry-ladder/options.js';

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
    name: 'retry-ladder',
    title: 'tiered TTL delay queues, exponential backoff and a deadline that wins over the count',
    proves:
      'Retries climb a ladder of delay queues, one fixed TTL each (200/400/800 ms by default: ' +
      'min(max-delay, d × 2^(n-1))), with the attempt in the application’s own header; observed gaps between ' +
      'deliveries are at least each tier’s TTL and grow tier by tier. A message that recovers on attempt 3 ' +
      'makes one business row; one that never recovers makes exactly max-attempts attempts and is rejected ' +
      'into the DLQ; one whose deadline cannot cover the next wait plus a call is parked, reason in a header, ' +
      'after fewer attempts. Every message ends in exactly one place: business table, DLQ or parking queue.',
    options: ladderFlags,
    floorMs: ladderFloorMs(LADDER_DEFAULTS),
    load: () => import('./retry-ladder/lab.js'),
  },
];

export function findLab(name: string): LabEntry | undefined {
  return registry.find((l) => l.name === name);
}
