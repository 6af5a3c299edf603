/**
 * Every check of dead-letter-reasons shown failing: the lab runs a deliberately broken variant
 * (MQLAB_FAULT=dead-letter-reasons:<fault>, see ctx.fault in lab.ts) and the check that should catch
 * it prints FAIL; the lab exits 1. Every path still produces a dead letter, so no run waits out a limit.
 */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const NS = useNamespace(import.meta.url).namespace;

const expectFails = (faults: string[], fails: string[], args: string[] = []) => expectFaultsFail({ lab: 'dead-letter-reasons', namespace: NS, faults, fails, args });

describe('dead-letter-reasons: each check fails when the experiment is broken on purpose', () => {
  it('straight into the queues; an application-made dead letter; a second death copied by the app; a producer not stopped', () =>
    expectFails(
      ['default-exchange', 'app-dead-letter', 'twice-app-copy', 'late-publish'],
      [
        // x-death names exchange "" instead of dlr.business
        'FAIL queueTtl:',
        'FAIL maxLength:',
        'FAIL reject:',
        'FAIL deliveryLimit:',
        // the first TTL-path dead letters are the application's copies: no x-death, expiration kept,
        // and there before the lab stamped the real messages as sent
        'FAIL messageTtl:',
        'FAIL messageTtl.expiration:',
        'FAIL messageTtl.originalExpiration:',
        'FAIL queueTtl.lifetimeMs:',
        'FAIL messageTtl.lifetimeMs:',
        'FAIL dlqDepths:', // two letters in the message-ttl DLQ
        // the broker saw only one death of `twice`
        'FAIL twice.countGrowth:',
        'FAIL twice:',
        'FAIL twice.history:',
        'FAIL workDepths:', // the late message waits in dlr.reject
      ],
    ));

  it('the overflow published newest first, a consumer that gives up before the delivery limit', () =>
    expectFails(['publish-newest-first', 'limit-gives-up'], ['FAIL maxLength.deadLetter:', 'FAIL deliveryLimit.deliveries:']));
});
