/**
 * Every check of consumer-timeout shown failing (MQLAB_FAULT=consumer-timeout:<variant>,
 * variants.ts) on the broker this run reaches. The catalogue says what each variant breaks on 4.3;
 * each case says what it shows before 4.3, where a held delivery closes the channel on both queue
 * types and a cancel never comes. One case at a time: on 3.10 a run sets the broker-wide timeout for
 * the moment its channels open, and a case beside it would open its own in that moment.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { describeFaults } from '../../test/faults.js';
import { mqlab, useNamespace } from '../../test/helpers.js';
import { atLeast } from '../../src/broker/capabilities.js';
import { Broker } from '../../src/broker/broker.js';
import { loadConfig } from '../../src/core/config.js';
import { meta } from './meta.js';

let broker: Broker;
beforeAll(async () => void (broker = await Broker.connect(loadConfig({}, process.env).amqpUrl)));
afterAll(async () => broker?.close());
const is43 = () => atLeast(broker.version, 4, 3);

/** below 4.3 the variant changes nothing the lab observes: the run passes */
const passesBefore43 = async (namespace: string, fault: string) => {
  const r = await mqlab([meta.name, '--namespace', namespace], { MQLAB_FAULT: `${meta.name}:${fault}` });
  expect(r.code, r.stdout + r.stderr).toBe(0);
};

describeFaults(
  meta,
  useNamespace(import.meta.url).namespace,
  [
    {
      title: 'the queues without a consumer timeout: the delivery stays held, nobody is told',
      faults: ['no-consumer-timeout'],
      only: true,
      // before 4.3 the classic queue did time out too, so it fails there as well
      run: (standard) =>
        is43()
          ? standard()
          : standard({
              failsOnThisLine: ['brokerAction', 'heldMs', 'redeliveryCount', 'ignoredCancel', 'classicQueueTimeout'],
            }),
    },
    {
      title: 'the classic queue declared as quorum: on 4.3 it is cancelled as well',
      faults: ['classic-as-quorum'],
      only: true,
      run: (standard, ns) => (is43() ? standard() : passesBefore43(ns, 'classic-as-quorum')),
    },
    {
      title: 'the ignoring client consumes again on the cancel: it gets both messages (4.3)',
      faults: ['reconsume-on-cancel'],
      only: true,
      run: (standard, ns) => (is43() ? standard() : passesBefore43(ns, 'reconsume-on-cancel')),
    },
  ],
  // one at a time: meta.disruptive (on 3.10 a run sets the broker-wide timeout while its channels open)
);
