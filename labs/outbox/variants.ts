/**
 * TEST ONLY: outbox's broken variants (declared in meta.ts; MQLAB_FAULT=outbox:<name>, src/lab/fault.ts),
 * loaded only when a run asks for one: each replaces a step of the lab (`OutboxSteps`: lab.ts,
 * business.ts, consumer.ts) or of the relay process (`RelaySteps`: relay-steps.ts, run by relay.ts).
 * Those files read as the correct outbox.
 */
import type { ChildRuntime, Variants, VariantsOf } from '../../src/kit/index.js';
import type { meta, Fault } from './meta.js';
import type { OutboxSteps } from './business.js';
import type { RelaySteps } from './relay-steps.js';
import type { OutboxNames } from './names.js';

export const variants: VariantsOf<typeof meta, OutboxSteps> = {
  // the naive design: publish inside the business transaction, before it commits; a transaction that
  // then rolls back has already published
  'publish-in-transaction': (s, ctx) => ({
    writeOrder: async (sql, name, r) => {
      await s.writeOrder(sql, name, r);
      await ctx.broker.sendConfirmed(name.queue, r.payload, {
        messageId: r.eventId,
        headers: { eventId: r.eventId, orderId: r.orderId },
      });
    },
  }),
  'no-second-relay': () => ({ secondRelay: () => Promise.resolve() }),
  'no-dedupe': () => ({ dedupe: false }),
};

export const relay: Variants<RelaySteps, Fault, ChildRuntime<OutboxNames, Fault>> = {
  'no-crash': () => ({ crashAfter: 0 }),
  'mark-before-publish': () => ({
    relayRow: async (publish, between, mark) => {
      await mark();
      await between();
      await publish();
    },
  }),
};
