/**
 * auto-ack-loss, broken on purpose (MQLAB_FAULT=auto-ack-loss:<fault>; rt.fault in consumer.ts):
 * each check is shown failing when the experiment it observes goes wrong, and the lab exits 1.
 */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const NS = useNamespace(import.meta.url).namespace;

const base = { lab: 'auto-ack-loss', namespace: NS } as const;

describe('auto-ack-loss: broken variants fail the checks that observe them', () => {
  it('consumers that are never killed: nothing lost, nothing redelivered', () =>
    expectFaultsFail({ ...base, faults: ['no-crash'], fails: ['FAIL autoAckExit:', 'FAIL autoAckLost:', 'FAIL manualExit:', 'FAIL manualRedelivered:'] }));

  it('the auto-ack phase acking by hand: the unprocessed messages stay in the queue', () =>
    expectFaultsFail({ ...base, faults: ['ack-manually-in-auto'], fails: ['FAIL autoAckQueueAfterCrash:', 'FAIL autoAckLost:'] }));

  it('the manual phase in auto-ack: it loses messages too', () =>
    expectFaultsFail({ ...base, faults: ['auto-ack-in-manual'], fails: ['FAIL manualLost:', 'FAIL manualRedelivered:'] }));

  it('the forgetful consumer acks after all: nothing unacked, nothing ready after close', () =>
    expectFaultsFail({ ...base, faults: ['acks-after-all'], fails: ['FAIL unackedWhileOpen:', 'FAIL readyAfterClose:'] }));
});
