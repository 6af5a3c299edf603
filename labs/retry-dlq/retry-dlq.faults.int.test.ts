/** retry-dlq, broken on purpose (MQLAB_FAULT, src/fault.ts): each check is shown failing when what it observes goes wrong. */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const base = { lab: 'retry-dlq', namespace: useNamespace(import.meta.url).namespace } as const;

describe('retry-dlq: broken variants fail the checks that observe them', () => {
  it('a wrong attempt count, no business row, a poison message dropped, a producer publishing late', async () => {
    await expectFaultsFail({
      ...base,
      faults: ['wrong-attempt', 'no-commit', 'drop-poison', 'late-publish'],
      fails: ['FAIL business_rows:', 'FAIL poisonAttempts:', 'FAIL poisonMovedToDlq:', 'FAIL dlqMessages:', 'FAIL workQueueDepthAfter:', 'FAIL retryQueueDepthAfter:'],
    });
  });

  it('an order published to a key no queue is bound to (returned), and a consumer that fails on a healthy message', async () => {
    await expectFaultsFail({ ...base, faults: ['unroutable', 'throw-healthy'], fails: ['FAIL confirmed:', 'FAIL consumer.exitCode:'] });
  });
});
