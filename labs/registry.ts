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
    name: 'retry-dlq',
    title: "retry counted by the broker's x-death; a poison message moved to a DLQ",
    proves:
      'Three confirmed orders; a consumer in its own process commits the two healthy ones to PostgreSQL ' +
      '(idempotent by message id) and rejects the poison one without requeue. The quorum work queue dead-letters ' +
      'it to a retry queue whose 1000 ms TTL dead-letters it back; the attempt number is 1 + the x-death count ' +
      'of (work queue, rejected), so it reads 1, 2, 3 on 3.10 and 4.x alike. At attempt 3 the consumer moves it ' +
      'to the DLQ with a confirm, then acks: work and retry queues end empty, the DLQ holds one message.',
    floorMs: 2000,
    load: () => import('./retry-dlq/lab.js'),
  },
];

export function findLab(name: string): LabEntry | undefined {
  return registry.find((l) => l.name === name);
}
