/**
 * Every check of retry-loop-limit shown failing (MQLAB_FAULT=retry-loop-limit:<variant>,
 * faults.ts) on the broker this run reaches; the catalogue says what each variant breaks on 4.x,
 * and where 3.10 differs, the case says so.
 */
import { afterAll, beforeAll } from 'vitest';
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { atLeast } from '../../src/broker/capabilities.js';
import { Broker } from '../../src/broker/broker.js';
import { loadConfig } from '../../src/core/config.js';
import { meta } from './meta.js';

let broker: Broker;
beforeAll(async () => void (broker = await Broker.connect(loadConfig({}, process.env).amqpUrl)));
afterAll(async () => broker?.close());

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  { title: 'an absent delivery count read as 0', faults: ['count-missing-as-zero'], only: true },
  {
    title: 'the work queue without x-delivery-limit: never dead-lettered within the requeues tried',
    faults: ['no-delivery-limit'],
    only: true,
  },
  {
    title: 'a worker rejects the letters out of the wait queue instead of a TTL: a client reject in the loop, no cycle',
    faults: ['wait-by-consumer'],
    // 4.x: the worker's reject raises the count too (absent, 2, 4, 6, 8) and the limit copy comes back; 3.10 looped anyway
    run: (standard) =>
      atLeast(broker.version, 4, 0) ? standard() : standard({ failsOnThisLine: ['freshLimitCycle'] }),
  },
]);
