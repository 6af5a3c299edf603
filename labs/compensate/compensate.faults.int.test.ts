/** compensate, broken on purpose (MQLAB_FAULT, src/fault.ts): each check is shown failing when what it observes goes wrong. */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

describe('compensate: broken variants fail the checks that observe them', () => {
  it('a release without its condition, writing the wrong state, in races that do not race', async () => {
    await expectFaultsFail({
      lab: 'compensate',
      namespace: useNamespace(import.meta.url).namespace,
      faults: ['unconditional-release', 'wrong-state', 'serialize'],
      fails: [
        'FAIL applied:',
        'FAIL changedRows:',
        'FAIL reservation:',
        'FAIL available:',
        'FAIL checkThenActOverlapped:',
        'FAIL checkThenActApplied:',
        'FAIL checkThenActAvailable:',
        'FAIL raceOverlapped:',
        'FAIL raceApplied:',
        'FAIL raceReservation:',
        'FAIL raceAvailable:',
      ],
    });
  });
});
