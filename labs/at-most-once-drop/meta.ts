/** at-most-once-drop: metadata only (cheap to import); the lab's code loads when it runs. */
import type { LabEntry } from '../../src/lab.js';
import { parseDuration } from '../../src/duration.js';
import { UsageError } from '../../src/errors.js';

/** the seed's window in which the target stays unbound, per phase */
export const WINDOW_MS = 2000;
export const DEFAULT_RECOVER_TIMEOUT = '240s';

export const meta: LabEntry = {
  name: 'at-most-once-drop',
  title: 'the default dead-letter strategy drops a letter whose target is unbound',
  proves:
    'With a dead-letter policy that names no strategy (at-most-once, the default) on a quorum queue, a message ' +
    'rejected without requeue while the target queue is unbound is gone: the statistics show the source empty ' +
    '(messages=0) once the rejection is counted, and after the binding is restored nothing arrives in the target, ' +
    "for longer than the broker's dead-letter worker needs. The same letter under the same policy with " +
    'dead-letter-strategy=at-least-once is held in the source (messages=1 ready=0 unacked=0) and delivered by the ' +
    'broker once the target is bound again (x-death: source, rejected, count 1).',
  options: [
    {
      flags: '--recover-timeout <duration>',
      description: "how long to wait after the rebind for the broker's dead-letter worker (180 s timer on an untuned broker)",
      default: DEFAULT_RECOVER_TIMEOUT,
      parse: parseRecoverTimeout,
    },
  ],
  // two windows with the target unbound
  floorMs: 2 * WINDOW_MS,
  load: () => import('./lab.js'),
};

/** checkpoints the lab calls, in order */
export const checkpoints = ['dropped', 'letter-held', 'recovered'] as const;

/** --recover-timeout: a duration (90s, 4m); a bad one names the option */
export function parseRecoverTimeout(raw: string): number {
  try {
    return parseDuration(raw);
  } catch (err) {
    throw new UsageError(`--recover-timeout: ${(err as Error).message}`, (err as UsageError).hint);
  }
}
