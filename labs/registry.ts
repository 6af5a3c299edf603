/**
 * Every lab, in the order `mqlab all` runs them. A new lab is one folder under labs/ plus one
 * entry here. Entries are metadata only; the lab's code loads when the lab runs.
 */
import type { LabEntry } from '../src/lab.js';
import { PREFETCH, WINDOW_MS, parsePrefetch, parseWindowMs } from './requeue-storm/options.js';

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
    name: 'requeue-storm',
    title: 'why nack(requeue=true) is not a retry: the requeue storm next to a TTL delay queue',
    proves:
      'For the same window, one message that always fails and a steady stream of healthy ones: ' +
      'nack(requeue=true) hands the failing message back at once, so it is redelivered at least 20x more often ' +
      'per second than through reject → 500 ms TTL delay queue → back, and burns the consumer\'s CPU; ' +
      'every healthy message is still processed in both modes, and the queues are empty afterwards.',
    options: [
      { flags: '--window-ms <ms>', description: `how long each mode runs (${WINDOW_MS.min}–${WINDOW_MS.max})`, default: WINDOW_MS.default, parse: parseWindowMs },
      { flags: '--prefetch <n>', description: 'unacked deliveries per consumer (with 1 the storm holds the consumer; try 10)', default: PREFETCH.default, parse: parsePrefetch },
    ],
    floorMs: 2 * WINDOW_MS.default,
    load: () => import('./requeue-storm/lab.js'),
  },
];

export function findLab(name: string): LabEntry | undefined {
  return registry.find((l) => l.name === name);
}
