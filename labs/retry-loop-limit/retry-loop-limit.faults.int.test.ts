/**
 * Every check of retry-loop-limit shown failing (MQLAB_FAULT=retry-loop-limit:<variant>,
 * faults.ts) on the broker this run reaches; where a line differs, the case says so.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { atLeast } from '../../src/broker/capabilities.js';
import { Broker } from '../../src/broker/broker.js';
import { loadConfig } from '../../src/config.js';

const NS = useNamespace(import.meta.url).namespace;
const lab = 'retry-loop-limit';

describe('retry-loop-limit: each check fails when the experiment is broken on purpose', () => {
  let broker: Broker;
  beforeAll(async () => void (broker = await Broker.connect(loadConfig({}, process.env).amqpUrl)));
  afterAll(async () => broker?.close());

  it('an absent delivery count read as 0', () => expectFaultsFail({ lab, namespace: NS, faults: ['count-missing-as-zero'], only: true, fails: ['FAIL loopDeliveryCounts:'] }));

  it('the work queue without x-delivery-limit: never dead-lettered within the requeues tried', () =>
    expectFaultsFail({
      lab,
      namespace: NS,
      faults: ['no-delivery-limit'],
      only: true,
      fails: ['FAIL requeuesUntilDeadLetter:', 'FAIL deadLetterReason:', 'FAIL cycleAfterLimit:', 'FAIL freshLimitCycle:'],
    }));

  it('a worker rejects the letters out of the wait queue instead of a TTL: a client reject in the loop, no cycle', () =>
    expectFaultsFail({
      lab,
      namespace: NS,
      faults: ['wait-by-consumer'],
      // 4.x: the worker's reject raises the count too (absent, 2, 4, 6, 8) and the limit copy comes back; 3.10 looped anyway
      fails: atLeast(broker.version, 4, 0) ? ['FAIL loopDeliveryCounts:', 'FAIL cycleAfterLimit:', 'FAIL freshLimitCycle:'] : ['FAIL freshLimitCycle:'],
    }));
});
