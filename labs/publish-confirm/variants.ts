/**
 * TEST ONLY: where publish-confirm's broken variants (declared in meta.ts;
 * MQLAB_FAULT=publish-confirm:<name>, src/lab/fault.ts) replace a step of the publishers and the
 * consumer: of the lab (`ConfirmSteps`: lab.ts, consumer.ts) or of the producer process
 * (`ProducerSteps`: producer.ts). Those files read as the correct experiment.
 */
import type { Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';

/** the steps of the lab a broken variant may replace */
export interface ConfirmSteps {
  /** the route of the unrouted key before its publishes: unbound, so no binding matches */
  unrouteKey(bind: () => Promise<unknown>, unbind: () => Promise<unknown>): Promise<unknown>;
  /** the plain publish is not mandatory: the broker drops it and only acks */
  plainMandatory: boolean;
  /** between the bounded queue's two publishes: nothing, the queue stays full */
  beforeSecondPublish(take: () => Promise<unknown>): Promise<unknown>;
  /** the resend carries the same event id */
  resendId(eventId: string): string;
  /** the outcome was unknown, so the producer publishes the same event again */
  republish(run: () => Promise<void>): Promise<void>;
  /** the consumer fails each copy's first delivery (requeue) and succeeds on the second */
  consumeRetry: boolean;
  /** the consumer claims the event id before its effect */
  dedupe: boolean;
}

export const variants: Variants<ConfirmSteps, Fault> = {
  // a binding that matches, so nothing is returned and the messages land
  'bind-catch-all': { unrouteKey: (bind) => bind() },
  'plain-mandatory': { plainMandatory: true },
  // space freed before the second publish
  'room-for-two': { beforeSecondPublish: (take) => take() },
  'new-id-on-resend': { resendId: (eventId) => `${eventId}-new` },
  'no-republish': { republish: () => Promise.resolve() },
  'no-consume-retry': { consumeRetry: false },
  'no-dedupe': { dedupe: false },
};

/** the steps of the producer process a broken variant may replace */
export interface ProducerSteps {
  /** with --die-before-confirm: the process dies before the confirm reaches it */
  diesBeforeConfirm: boolean;
}

export const producerVariants: Variants<ProducerSteps, Fault> = {
  'wait-for-confirm': { diesBeforeConfirm: false },
};
