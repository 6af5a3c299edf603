/** publish-confirm's metadata: cheap to import (the CLI lists and describes labs from it); its code loads when it runs. */
import { defineLab, type FaultName } from '../../src/kit/index.js';

export const meta = defineLab({
  name: 'publish-confirm',
  title: 'what a publisher confirm says and does not say; publish retry vs consume retry',
  summary:
    'a confirm says "the broker took it": mandatory return + ack, silent drop without mandatory, a full queue\'s nack and resend; publish retry vs consume retry, one business effect',
  seed: '004, 000',
  proves:
    'A mandatory publish that no binding matches gets a basic.return and then a positive confirm, and lands in ' +
    'no queue; without mandatory it is confirmed and silently gone. A queue at x-max-length with x-overflow ' +
    'reject-publish nacks the next publish; the resend with the same event id after space frees is confirmed and ' +
    'lands once. A producer process that publishes and is killed before the confirm (exit 137, result unknown) ' +
    'is followed by a second publish attempt of the same event id; the consumer fails each copy once (consume ' +
    'retry, redelivered=true), logs eventId, publishAttempt and deliveryAttempt apart, and its dedupe table ' +
    'leaves one business effect.',
  floorMs: 0,
  options: {},
  checks: [
    'mandatoryFrames',
    'plainFrames',
    'unroutedInQueues',
    'boundedFrames',
    'resendLandedOnce',
    'producerExit',
    'attempt1Result',
    'publishAttempts',
    'deliveryAttempts',
    'businessEffects',
    'duplicatesSkipped',
  ],
  // the broken variants (MQLAB_FAULT=publish-confirm:<name>): what each breaks, and the checks that must print FAIL
  faults: {
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
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    returned:
      "(a, b): the mandatory publish got return then ack, the plain one only ack; the exchange's only queue holds neither",
    nacked:
      '(c): the bounded queue (x-max-length 1) holds one message and the second publish was nacked; nothing is resent yet',
    'result-unknown':
      '(d): producer-run1 died by SIGKILL without reading a confirm; the first copy is in the events queue, the second attempt has not started',
    consumed:
      'both copies were delivered, one failed once and was retried; one business effect, the other copy skipped by the dedupe row',
  },
});

/** a broken variant of publish-confirm */
export type Fault = FaultName<typeof meta.faults>;
