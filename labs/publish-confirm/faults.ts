/**
 * TEST ONLY: the publish-confirm lab's broken variants (MQLAB_FAULT=publish-confirm:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'bind-catch-all': {
    breaks: 'a catch-all binding: the "unroutable" message lands in a queue, no basic.return',
    fails: ['mandatoryFrames', 'unroutedInQueues'],
  },
  'plain-mandatory': {
    breaks: 'the plain publish is sent mandatory: a return where an unroutable plain publish is dropped silently',
    fails: ['plainFrames'],
  },
  'room-for-two': {
    breaks: 'room is made in the bounded queue before the second publish: no nack',
    fails: ['boundedFrames'],
  },
  'new-id-on-resend': { breaks: 'the resend after the nack gets a new message id', fails: ['resendLandedOnce'] },
  'wait-for-confirm': {
    breaks: 'the producer waits for its confirm instead of dying before it',
    fails: ['producerExit', 'attempt1Result'],
  },
  'no-republish': { breaks: 'no publish retry after the unknown outcome', fails: ['publishAttempts'] },
  'no-consume-retry': { breaks: 'no consume retry after the failed delivery', fails: ['deliveryAttempts'] },
  'no-dedupe': {
    breaks: 'the consumer does not dedupe: two business effects from one event',
    fails: ['businessEffects', 'duplicatesSkipped'],
  },
});

/** a broken variant of publish-confirm */
export type Fault = keyof typeof faults;
