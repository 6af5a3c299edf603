/**
 * hold, broken on purpose (MQLAB_FAULT, src/fault.ts): each check is shown failing when the
 * experiment it observes goes wrong. The recover timeout is short: in these runs nothing recovers.
 */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const base = { lab: 'hold', namespace: useNamespace(import.meta.url).namespace, args: ['--recover-timeout', '3s'] } as const;

describe('hold: broken variants fail the checks that observe them', () => {
  it('a policy that matches no queue: nothing is held, nothing recovered', async () => {
    await expectFaultsFail({
      ...base,
      faults: ['wrong-pattern'],
      fails: ['FAIL policyStored:', 'FAIL policyOnSource:', 'FAIL sourceWhileHeld:', 'FAIL recoveredOriginalEvent:', 'FAIL targetDeliveries:', 'FAIL deadLetteredByBroker:', 'FAIL noApplicationRepublish:'],
    });
  });

  it('the target is never unbound, and the application republishes the event itself', async () => {
    await expectFaultsFail({
      ...base,
      faults: ['keep-binding', 'republish', 'late-republish'],
      fails: ['FAIL targetUnbound:', 'FAIL targetEmpty:', 'FAIL targetDeliveries:', 'FAIL noApplicationRepublish:', 'FAIL targetDepthAfter:'],
    });
  });

  it('the binding is never restored: the letter stays held and the policy must stay', async () => {
    await expectFaultsFail({
      ...base,
      faults: ['no-rebind'],
      fails: ['FAIL bindingRestored:', 'FAIL recoveredOriginalEvent:', 'FAIL sourceAfter:', 'FAIL policyCleared:'],
    });
  });
});
