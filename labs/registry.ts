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
    name: 'dlx-loop',
    title: 'a dead-letter route that leads back to its own queue, and the fix',
    proves:
      'A queue whose dead-letter exchange routes back into itself returns a rejected message at once, ' +
      'with the x-death count growing on every hop (1, 2, 3) and no delay; the topology check finds the ' +
      'loop. Splitting the route (a TTL retry queue and an archive queue) delays each retry by the TTL ' +
      'and lets the message leave the loop into the archive after the last attempt.',
    floorMs: 2 * 200,
    load: () => import('./dlx-loop/lab.js'),
  },
  {
    name: 'ordering',
    title: 'version checks beat ordering under delayed retry',
    proves:
      'Version 1 of order-42 fails once and waits 300 ms in a TTL delay queue while version 2 is applied; ' +
      'when version 1 returns, one transaction (a conditional upsert WHERE stored.version < incoming.version) ' +
      'leaves version 2 stored and records version 1 in the stale table with both versions. No event is lost, ' +
      'the queues end empty, and a naive last-write-wins table written from the same deliveries ends at version 1.',
    floorMs: 300,
    load: () => import('./ordering/lab.js'),
  },
];

export function findLab(name: string): LabEntry | undefined {
  return registry.find((l) => l.name === name);
}
