/**
 * TEST ONLY: publish-confirm's broken variants (declared in meta.ts; MQLAB_FAULT=publish-confirm:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: each replaces a step of the publishers and the
 * consumer: of the lab (`ConfirmSteps`: lab.ts, consumer.ts) or of the producer process
 * (`ProducerSteps`: producer-steps.ts, run by producer.ts). Those files read as the correct experiment.
 */
import type { ChildRuntime, Variants, VariantsOf } from '../../src/kit/index.js';
import type { meta, Fault } from './meta.js';
import type { ConfirmSteps } from './lab.js';
import type { ProducerSteps } from './producer-steps.js';
import { names, type ConfirmNames } from './names.js';

export const variants: VariantsOf<typeof meta, ConfirmSteps> = {
  // a binding that matches, so nothing is returned and the messages land
  'bind-catch-all': () => ({ unrouteKey: (bind) => bind() }),
  'plain-mandatory': () => ({ plainMandatory: true }),
  // space freed before the second publish: a message taken off the bounded queue
  'room-for-two': (s, ctx) => ({
    publishSecond: async (send) => {
      const m = await ctx.broker.get(names(ctx.names).bounded);
      m?.ack();
      return s.publishSecond(send);
    },
  }),
  'new-id-on-resend': () => ({ resendId: (eventId) => `${eventId}-new` }),
  'no-republish': () => ({ republish: () => Promise.resolve() }),
  'no-consume-retry': () => ({ consumeRetry: false }),
  'no-dedupe': () => ({ dedupe: false }),
};

export const producer: Variants<ProducerSteps, Fault, ChildRuntime<ConfirmNames, Fault>> = {
  'wait-for-confirm': () => ({ diesBeforeConfirm: false }),
};
