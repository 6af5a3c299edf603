/** retry, broken on purpose (MQLAB_FAULT, src/fault.ts): each check is shown failing when what it observes goes wrong. */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const base = { lab: 'retry', namespace: useNamespace(import.meta.url).namespace } as const;

describe('retry: broken variants fail the checks that observe them', () => {
  it('a retry copy that skips the delay queue and an attempt, a lost commit, a requeued healthy message', async () => {
    await expectFaultsFail({
      ...base,
      faults: ['skip-delay', 'skip-attempt', 'no-commit', 'requeue-healthy'],
      fails: ['FAIL healthyAttempts:', 'FAIL transientAttempts:', 'FAIL businessRows:', 'FAIL shortestRetryGapMs:'],
    });
  });

  it('a poison message acked instead of rejected, and a retry copy after the commit', async () => {
    await expectFaultsFail({ ...base, faults: ['ack-poison', 'extra-copy'], fails: ['FAIL poisonDeadLettered:', 'FAIL queueDepthAfter:'] });
  });
});
