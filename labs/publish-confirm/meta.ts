/** publish-confirm's metadata: cheap to import (the CLI lists and describes labs from it); its code loads when it runs. */
import { defineLab } from '../../src/kit/index.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'publish-confirm',
  title: 'what a publisher confirm says and does not say; publish retry vs consume retry',
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
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
