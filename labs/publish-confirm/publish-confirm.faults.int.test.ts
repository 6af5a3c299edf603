/**
 * publish-confirm, broken on purpose (MQLAB_FAULT=publish-confirm:<fault>; ctx.fault in lab.ts and
 * consume.ts, rt.fault in producer.ts): each check is shown failing when the experiment it observes
 * goes wrong, and the lab exits 1.
 */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const NS = useNamespace(import.meta.url).namespace;

const base = { lab: 'publish-confirm', namespace: NS } as const;

describe('publish-confirm: broken variants fail the checks that observe them', () => {
  it('a catch-all binding: the "unroutable" message lands in a queue, no basic.return', () =>
    expectFaultsFail({ ...base, faults: ['bind-catch-all'], fails: ['FAIL mandatoryFrames:', 'FAIL unroutedInQueues:'] }));

  it('the plain publish sent mandatory: a return where the seed shows a silent drop', () =>
    expectFaultsFail({ ...base, faults: ['plain-mandatory'], fails: ['FAIL plainFrames:'] }));

  it('room made in the bounded queue before the second publish: no nack', () =>
    expectFaultsFail({ ...base, faults: ['room-for-two'], fails: ['FAIL boundedFrames:'] }));

  it('a new message id on the resend: the resend is not the same message', () =>
    expectFaultsFail({ ...base, faults: ['new-id-on-resend'], fails: ['FAIL resendLandedOnce:'] }));

  it('the producer waits for its confirm instead of dying before it', () =>
    expectFaultsFail({ ...base, faults: ['wait-for-confirm'], fails: ['FAIL producerExit:', 'FAIL attempt1Result:'] }));

  it('no publish retry after the unknown outcome', () =>
    expectFaultsFail({ ...base, faults: ['no-republish'], fails: ['FAIL publishAttempts:'] }));

  it('no consume retry', () => expectFaultsFail({ ...base, faults: ['no-consume-retry'], fails: ['FAIL deliveryAttempts:'] }));

  it('a consumer that does not dedupe: two business effects from one event', () =>
    expectFaultsFail({ ...base, faults: ['no-dedupe'], fails: ['FAIL businessEffects:', 'FAIL duplicatesSkipped:'] }));
});
