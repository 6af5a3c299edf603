/**
 * outbox, broken on purpose (MQLAB_FAULT=outbox:<fault>; ctx.fault in lab.ts, business.ts and
 * consume.ts, rt.fault in relay.ts): each check is shown failing when the experiment it observes
 * goes wrong, and the lab exits 1.
 */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const NS = useNamespace(import.meta.url).namespace;

const base = { lab: 'outbox', namespace: NS } as const;

describe('outbox: broken variants fail the checks that observe them', () => {
  it('a relay that is never killed: nothing confirmed-but-unmarked, no duplicate', () =>
    expectFaultsFail({ ...base, faults: ['no-crash'], fails: ['FAIL relayExit:', 'FAIL confirmedNotMarked:', 'FAIL duplicatesSkipped:'] }));

  it('a relay that marks the row sent before it publishes: the killed relay loses order-2', () =>
    expectFaultsFail({ ...base, faults: ['mark-before-publish'], fails: ['FAIL confirmedNotMarked:', 'FAIL duplicatesSkipped:', 'FAIL businessEffects:'] }));

  it('no second relay run: the unmarked row stays unsent', () =>
    expectFaultsFail({ ...base, faults: ['no-second-relay'], fails: ['FAIL outboxUnsentAfter:'] }));

  it('a consumer that does not dedupe: order-2 applied twice', () =>
    expectFaultsFail({ ...base, faults: ['no-dedupe'], fails: ['FAIL duplicatesSkipped:', 'FAIL businessEffects:'] }));

  it('a publish inside the business transaction: the rolled-back order is published', () =>
    expectFaultsFail({ ...base, faults: ['publish-in-transaction'], fails: ['FAIL rolledBackOrder:'] }));
});
