/**
 * TEST ONLY: where outbox's broken variants (declared in meta.ts; MQLAB_FAULT=outbox:<name>,
 * src/lab/fault.ts) replace a step: of the lab (`OutboxSteps`: lab.ts, business.ts, consumer.ts) or of
 * the relay process (`RelaySteps`: relay.ts). Those files read as the correct outbox.
 */
import type { Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';

/** the steps of the lab a broken variant may replace */
export interface OutboxSteps {
  /** inside the business transaction, after both rows: nothing is published (the relay does that) */
  inTransaction(publish: () => Promise<unknown>): Promise<unknown>;
  /** a second relay publishes what the first left unsent */
  secondRelay(run: () => Promise<void>): Promise<void>;
  /** the consumer claims the event id before its effect */
  dedupe: boolean;
}

export const variants: Variants<OutboxSteps, Fault> = {
  // the naive design: publish inside the business transaction, before it commits; a transaction that
  // then rolls back has already published
  'publish-in-transaction': { inTransaction: (publish) => publish() },
  'no-second-relay': { secondRelay: () => Promise.resolve() },
  'no-dedupe': { dedupe: false },
};

/** the steps of the relay a broken variant may replace */
export interface RelaySteps {
  /** SIGKILL itself after this many rows (0: never): --crash-after-confirm */
  crashAfter: number;
  /** one row: publish (confirmed), then mark it sent; `between` is where a crash lands */
  relayRow(publish: () => Promise<void>, between: () => Promise<void>, mark: () => Promise<void>): Promise<void>;
}

export const relayVariants: Variants<RelaySteps, Fault> = {
  'no-crash': { crashAfter: 0 },
  'mark-before-publish': {
    relayRow: async (publish, between, mark) => {
      await mark();
      await between();
      await publish();
    },
  },
};
