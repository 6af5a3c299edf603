/** db-outage, broken on purpose (MQLAB_FAULT, src/fault.ts): each check is shown failing when what it observes goes wrong. */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const base = { lab: 'db-outage', namespace: useNamespace(import.meta.url).namespace } as const;

describe('db-outage: broken variants fail the checks that observe them', () => {
  it('a consumer that acks on receipt: the held message is lost when its transaction fails', async () => {
    await expectFaultsFail({ ...base, faults: ['ack-before-commit'], fails: ['FAIL heldDeliveryOutcome:', 'FAIL readyWhileHeld:', 'FAIL ackedBeforeCommit:', 'FAIL lostIds:', 'FAIL effectRows:'] });
  });

  it('a consumer whose effect and key commit separately: the redelivery writes the effect twice', async () => {
    await expectFaultsFail({ ...base, faults: ['autocommit'], fails: ['FAIL duplicateEffects:', 'FAIL effectRows:'] });
  });

  it('a run that never stops PostgreSQL: nothing shows the database down, no commit fails', async () => {
    await expectFaultsFail({ ...base, faults: ['no-outage'], fails: ['FAIL postgresExited:', 'FAIL postgresRefused:', 'FAIL failedCommits:'] });
  });
});
