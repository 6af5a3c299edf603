/**
 * delayed-retry, broken on purpose (MQLAB_FAULT=delayed-retry:<fault>; variants.ts,
 * declared in meta.ts). The lab needs RabbitMQ 4.3: on 4.3 each case asserts that the checks that should catch
 * the fault print FAIL and the lab exits 1; below 4.3 it asserts the SKIP line and exit 0 (a fault
 * does not turn a SKIP into a run). Decided by the broker this file reaches, no test is skipped.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { describeFaults, type FaultCase } from '../../test/faults.js';
import { useNamespace, mqlab } from '../../test/helpers.js';
import { atLeast } from '../../src/broker/capabilities.js';
import { Broker } from '../../src/broker/broker.js';
import { loadConfig } from '../../src/core/config.js';
import { meta } from './meta.js';
import { faultLine } from '../../src/report/text.js';

const namespace = useNamespace(import.meta.url).namespace;
const config = loadConfig({}, { ...process.env, MQLAB_NAMESPACE: undefined });
let broker: Broker;
beforeAll(async () => void (broker = await Broker.connect(config.amqpUrl)));
afterAll(async () => broker?.close());

/**
 * on 4.3 the broken run fails its variants' checks (and only those, unless said, but for the two
 * lateness checks and the statistics sample of the hold, which a loaded 2-core machine can fail too:
 * measured with a load average of 23); below 4.3 it prints the SKIP line
 */
const broken = (title: string, faults: FaultCase<typeof meta>['faults'], only = true): FaultCase<typeof meta> => ({
  title,
  faults,
  only,
  alsoMayFail: ['rejectMaxLateMs', 'nackMaxLateMs', 'heldInQueue'],
  run: async (standard, ns) => {
    if (atLeast(broker.version, 4, 3)) {
      await standard();
      return;
    }
    const r = await mqlab([meta.name, '--namespace', ns], {
      MQLAB_FAULT: faults.map((f) => `${meta.name}:${f}`).join(','),
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // the run says it is a broken variant's, then SKIP (src/report/text.ts renderLab)
    expect(r.stdout.trim().split('\n')).toEqual([
      faultLine({ lab: meta.name, faults: [...faults] }),
      `SKIP delayed-retry: needs RabbitMQ 4.3 (this broker: ${broker.version})`,
    ]);
  },
});

describeFaults(meta, namespace, [
  // without delayed retry the returned message races the consumer's cancel: more may fail, never fewer
  broken('queues declared without x-delayed-retry-*: back at once, nothing held', ['no-delayed-retry'], false),
  broken('nack where the lab means reject: the delivery count and the delay do not grow', ['nack-for-reject']),
  broken('reject where the lab means nack: the delivery count and the delay grow', ['reject-for-nack']),
  broken('a consumer that works longer than the minimum delay before returning', ['slow-consumer']),
  broken('the held queue without x-max-length: the third publish is accepted too', ['no-max-length']),
  broken('a native queue bound to an exchange, and a ladder work queue bound to its retry exchange', [
    'native-bound',
    'work-bound-to-retry',
  ]),
  // the rules (rules.ts): each variant breaks one queue or policy of its own
  broken('the failed queue declared all; min given to the no-min queue and policy; a max = min policy', [
    'failed-as-all',
    'min-given',
    'max-not-below-min',
  ]),
  broken(
    'a max given where it should default; the precedence policies not applied; the limit -1 queue declared failed',
    ['max-given', 'no-policies', 'unlimited-as-failed'],
  ),
]);
