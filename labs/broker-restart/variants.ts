/**
 * TEST ONLY: where the broker-restart lab's broken variants (declared in meta.ts;
 * MQLAB_FAULT=broker-restart:<name>, src/lab/fault.ts) replace a step of the experiment (`RestartSteps`:
 * lab.ts, clients.ts). Those files read as the correct experiment.
 */
import type { Outage, Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import type { BrokerRestartNames } from './names.js';

/** the steps of the experiment a broken variant may replace */
export interface RestartSteps {
  /** the queue the lab publishes to and whether its messages are persistent: the quorum queue, persistent */
  target(name: BrokerRestartNames): { queue: string; persistent: boolean };
  /** after a lost connection: `send` sends every id the broker had not confirmed again */
  resend(send: () => Promise<void>): Promise<void>;
  /** in the effect's transaction: `write` inserts the idempotency key (no row back: a redelivery, skipped) */
  writeKey(write: () => Promise<readonly unknown[]>): Promise<readonly unknown[]>;
  /** stop the node and start it again under both clients: the outage (with the ids confirmed at the stop), or null */
  restart(confirmed: () => string[]): Promise<Outage<string[]> | null>;
}

export const variants = (run: {
  progress(line: string): void;
  sleep(ms: number): Promise<void>;
}): Variants<RestartSteps, Fault> => ({
  'transient-classic': { target: (name) => ({ queue: name.classic, persistent: false }) },
  'no-resend': { resend: () => Promise.resolve() },
  // no key written: every delivery, redeliveries too, counts as fresh
  'no-dedupe': { writeKey: () => Promise.resolve([{}]) },
  'no-restart': {
    restart: async () => {
      run.progress('(test fault) the node is NOT restarted');
      await run.sleep(2000);
      return null;
    },
  },
});
