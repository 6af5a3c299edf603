/**
 * Long passes over a large snapshot (100,000 queues) give the event loop a turn every few thousand
 * steps, so Ctrl-C is heard while the audit computes (security review D8: a synchronous loop search
 * ignored SIGINT for 20 minutes); after the signal, the next turn ends the audit as interrupted.
 */
import { setImmediate as turn } from 'node:timers/promises';
import { Interrupted } from '../core/errors.js';

/** call once per step; await what it returns (a turn of the event loop every `every` steps) */
export type Ticker = () => Promise<void> | undefined;

export function ticker(signal?: AbortSignal, every = 2048): Ticker {
  let steps = 0;
  return () => {
    if (++steps % every !== 0) return undefined;
    return turn().then(() => {
      if (signal?.aborted) throw new Interrupted();
    });
  };
}

/** for tests and small inputs: never yields */
export const noTicks: Ticker = () => undefined;
