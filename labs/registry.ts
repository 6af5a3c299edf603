/**
 * Every lab, in the order `mqlab all` runs them. A new lab is one folder under labs/ plus one
 * entry here. Entries are metadata only; the lab's code loads when the lab runs.
 */
import type { LabEntry } from '../src/lab.js';
import { DEFAULT_RECOVER_TIMEOUT_S, parseRecoverTimeout } from './hold/options.js';

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
    name: 'hold',
    title: 'at-least-once dead lettering holds a letter while its target is unbound',
    proves:
      'With the policy me12-hold (dead-letter-strategy at-least-once, overflow reject-publish) on the source, a ' +
      'message rejected without requeue while the target queue is unbound stays held in the source (messages=1, ' +
      'ready=0, unacked=0) and the target stays empty; once the binding is restored the broker\'s own dead-letter ' +
      'worker delivers the same message id and body, with an x-death entry for the source, and the application ' +
      'publishes nothing again. The policy is cleared only when the source holds no letter.',
    options: [
      {
        flags: '--recover-timeout <seconds>',
        description: "how long to wait after the rebind for the broker's dead-letter worker (180 s timer on an untuned broker)",
        default: DEFAULT_RECOVER_TIMEOUT_S,
        parse: parseRecoverTimeout,
      },
    ],
    floorMs: 3000,
    load: () => import('./hold/lab.js'),
  },
];

export function findLab(name: string): LabEntry | undefined {
  return registry.find((l) => l.name === name);
}
