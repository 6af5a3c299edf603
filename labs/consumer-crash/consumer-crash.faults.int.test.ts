/** consumer-crash, broken on purpose (MQLAB_FAULT, src/fault.ts): each check is shown failing when what it observes goes wrong. */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const base = { lab: 'consumer-crash', namespace: useNamespace(import.meta.url).namespace } as const;

describe('consumer-crash: broken variants fail the checks that observe them', () => {
  it('a consumer that acks before its commit and takes every message at once', async () => {
    await expectFaultsFail({
      ...base,
      faults: ['ack-before-commit', 'prefetch-all'],
      fails: ['FAIL crashAfterBusinessCommit:', 'FAIL receivedTotal:', 'FAIL redeliveredCount:', 'FAIL duplicatesObserved:'],
    });
  });

  it('a consumer that does not dedupe, exits cleanly instead of dying, and whose second run dies too', async () => {
    await expectFaultsFail({
      ...base,
      faults: ['no-dedupe', 'exit-cleanly', 'crash-again'],
      fails: ['FAIL crashExitCode:', 'FAIL duplicatesObserved:', 'FAIL uniqueMessageIds:', 'FAIL business_rows:', 'FAIL queueDepthAfter:', 'FAIL consumer-run2.exitCode:'],
    });
  });
});
