/** replay, broken on purpose (MQLAB_FAULT, src/fault.ts): each check is shown failing when what it observes goes wrong. */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const base = { lab: 'replay', namespace: useNamespace(import.meta.url).namespace } as const;

describe('replay: broken variants fail the checks that observe them', () => {
  it('the original acked before its copy, a new id, the unrepaired body, two copies', async () => {
    await expectFaultsFail({
      ...base,
      faults: ['ack-before-confirm', 'new-id', 'raw-payload', 'publish-twice'],
      fails: ['FAIL stableEventId:', 'FAIL repairedPayload:', 'FAIL sourceRemovedAfterConfirm:', 'FAIL verified:', 'FAIL auditState:', 'FAIL queueDepthAfter:'],
    });
  });

  it('the original is never acked: it stays in the dead queue', async () => {
    await expectFaultsFail({ ...base, faults: ['keep-original'], fails: ['FAIL sourceRemovedAfterConfirm:', 'FAIL queueDepthAfter:'] });
  });
});
