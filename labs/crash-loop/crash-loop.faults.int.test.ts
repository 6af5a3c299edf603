/**
 * Every check of crash-loop shown failing (MQLAB_FAULT=crash-loop:<variant>, faults.ts), on the
 * broker this run reaches: what fails differs per line (3.10 counts a nack, 4.3 does not; 3.10
 * has no delayed retry, its check is SKIP there), so each case says what it expects on each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { mqlab, useNamespace } from '../../test/helpers.js';
import { atLeast } from '../../src/broker/capabilities.js';
import { Broker } from '../../src/broker/broker.js';
import { loadConfig } from '../../src/config.js';

const NS = useNamespace(import.meta.url).namespace;
const lab = 'crash-loop';

describe('crash-loop: each check fails when the experiment is broken on purpose', () => {
  let broker: Broker;
  beforeAll(async () => void (broker = await Broker.connect(loadConfig({}, process.env).amqpUrl)));
  afterAll(async () => broker?.close());
  const is43 = () => atLeast(broker.version, 4, 3);

  it('absent counts read as 0; the nack loop rejects instead (4.3); the delayed queue without delayed retry (4.3)', async () => {
    const faults = ['count-missing-as-zero', 'reject-for-nack', 'no-delayed-retry'];
    if (is43()) return void (await expectFaultsFail({ lab, namespace: NS, faults, only: true, fails: ['FAIL deliveryCounts:', 'FAIL acquiredCounts:', 'FAIL nackLoop:', 'FAIL crashRedeliveryDelayedMs:'] }));
    // 3.10: a reject counts like a nack, and the x-delayed-retry-* arguments are ignored anyway; the copy's absent count read as 0 too
    await expectFaultsFail({ lab, namespace: NS, faults, only: true, fails: ['FAIL deliveryCounts:', 'FAIL acquiredCounts:', 'FAIL deadLetterDeliveryCount:'] });
  });

  it('a consumer that nacks and exits cleanly instead of dying', () =>
    expectFaultsFail({
      lab,
      namespace: NS,
      faults: ['nack-instead-of-crash'],
      // 4.3: a nack does not count, the message is never dead-lettered; 3.10: it counts, only the exits differ
      fails: is43() ? ['FAIL crashExits:', 'FAIL deliveriesUntilDeadLetter:', 'FAIL deadLetterReason:', 'FAIL deliveryCounts:'] : ['FAIL crashExits:'],
    }));

  it('the work and nack queues without x-delivery-limit: the crash loop goes on', () =>
    expectFaultsFail({
      lab,
      namespace: NS,
      faults: ['no-delivery-limit'],
      fails: ['FAIL deliveriesUntilDeadLetter:', 'FAIL deadLetterReason:', 'FAIL deadLetterDeliveryCount:', ...(is43() ? [] : ['FAIL nackLoop:'])],
    }));

  it('3.10: the delayed-retry check is SKIP whatever the variant (the broker lacks it)', async () => {
    if (is43()) return;
    const r = await mqlab([lab, '--namespace', NS], { MQLAB_FAULT: `${lab}:no-delayed-retry` });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SKIP crashRedeliveryDelayedMs: needs RabbitMQ 4.3 native delayed retry');
  });
});
