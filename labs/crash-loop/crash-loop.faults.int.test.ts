/**
 * Every check of crash-loop shown failing (MQLAB_FAULT=crash-loop:<variant>, faults.ts), on the
 * broker this run reaches: what fails differs per line (3.10 and 4.0–4.2 count a nack, 4.3 does
 * not; before 4.3 there is no delayed retry, its check is SKIP there; from 4.0 the dead letter
 * carries the crashes). The catalogue says what each variant breaks on 4.3; each case says what it
 * expects on 4.0–4.2 and 3.10.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeFaults } from '../../test/faults.js';
import { mqlab, useNamespace } from '../../test/helpers.js';
import { atLeast } from '../../src/broker/capabilities.js';
import { Broker } from '../../src/broker/broker.js';
import { loadConfig } from '../../src/core/config.js';
import { meta } from './meta.js';

const NS = useNamespace(import.meta.url).namespace;
let broker: Broker;
beforeAll(async () => void (broker = await Broker.connect(loadConfig({}, process.env).amqpUrl)));
afterAll(async () => broker?.close());
const is43 = () => atLeast(broker.version, 4, 3);
const is4 = () => atLeast(broker.version, 4, 0);

describeFaults(meta, NS, [
  {
    title:
      'absent counts read as 0; the nack loop rejects instead (4.3); the delayed queue without delayed retry (4.3)',
    faults: ['count-missing-as-zero', 'reject-for-nack', 'no-delayed-retry'],
    only: true,
    // before 4.3: a reject counts like a nack, and the x-delayed-retry-* arguments are ignored anyway;
    // 3.10: the copy's absent count read as 0 too (4.0–4.2: the copy carries 3)
    run: (standard) =>
      is43()
        ? standard()
        : standard({
            failsOnThisLine: is4()
              ? ['deliveryCounts', 'acquiredCounts']
              : ['deliveryCounts', 'acquiredCounts', 'deadLetterDeliveryCount'],
          }),
  },
  {
    title: 'a consumer that nacks and exits cleanly instead of dying',
    faults: ['nack-instead-of-crash'],
    // 4.3: a nack does not count, the message is never dead-lettered; 4.0–4.2 and 3.10: it counts, the exits differ
    run: (standard) => (is43() ? standard() : standard({ failsOnThisLine: ['crashExits'] })),
  },
  {
    title: 'the work and nack queues without x-delivery-limit: the crash loop goes on',
    faults: ['no-delivery-limit'],
    run: (standard) =>
      is43()
        ? standard()
        : standard({
            failsOnThisLine: ['deliveriesUntilDeadLetter', 'deadLetterReason', 'deadLetterDeliveryCount', 'nackLoop'],
          }),
  },
]);

it('before 4.3: the delayed-retry check is SKIP whatever the variant (the broker lacks it)', async () => {
  if (is43()) return;
  const r = await mqlab([meta.name, '--namespace', NS], { MQLAB_FAULT: `${meta.name}:no-delayed-retry` });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toContain('SKIP crashRedeliveryDelayedMs: needs RabbitMQ 4.3 native delayed retry');
});
