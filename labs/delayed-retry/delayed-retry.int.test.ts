import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mqlab, passLines, runLabJson, useNamespace } from '../../test/helpers.js';
import { atLeast } from '../../src/broker/capabilities.js';
import { Broker } from '../../src/broker/broker.js';
import { Management } from '../../src/broker/management.js';
import { loadConfig } from '../../src/core/config.js';

const NS = useNamespace(import.meta.url).namespace;

describe('delayed-retry lab against the real broker', () => {
  // the broker the CLI reaches (MQLAB_* variables: run this file against a 4.3 broker for the 4.3 cases)
  const config = loadConfig({}, { ...process.env, MQLAB_NAMESPACE: undefined });
  const s = { mgmt: new Management(config.mgmtUrl, config.vhost) } as { broker: Broker; mgmt: Management };
  beforeAll(async () => void (s.broker = await Broker.connect(config.amqpUrl)));
  afterAll(async () => s.broker?.close());
  const native = () => atLeast(s.broker.version, 4, 3);

  // one test per claim, decided by the broker this run reaches: the 4.3 behaviour on 4.3, the SKIP below it
  it('runs on 4.3 (the schedule, the held message, both topologies as the broker shows them); below 4.3 SKIP with the version, nothing declared, --json and --junit say skipped', async () => {
    if (native()) {
      const r = await mqlab(['delayed-retry', '--namespace', NS]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(passLines(r.stdout)).toMatchObject({
        rejectEarlyGaps: '0',
        nackEarlyGaps: '0',
        rejectDeliveryCounts: '1,2,3,4',
        nackDeliveryCounts: '0,0,0,0',
        heldInQueue: 'messages=1 ready=0 unacked=0',
        maxLengthCountsHeld: 'second=accepted third=refused',
        nativeTopology: 'queues=1 exchanges=0 bindings=0',
        ladderTopology: 'queues=4 exchanges=1 bindings=3',
        typeDelays: 'disabled=none all=reject,nack failed=reject returned=nack',
        minRequired: 'argument=not delayed policy=refused',
        policyMaxBelowMin: 'refused',
        maxDefaultsToMin: 'x-delivery-count 2, then 0',
        policyTypeWins: 'reject=immediate nack=delayed',
        lowerMinWins: 'argument-lower=1000 policy-lower=1000',
        unlimitedLimitDelays: 'nack=delayed reject=delayed',
      });
      // the precedence policies are gone after the run; the refusals said why
      expect(await s.mgmt.policy(`${NS}-me12-native-policy-type`)).toBeNull();
      expect(await s.mgmt.queue(`${NS}.me12.native.unlimited`)).toMatchObject({
        arguments: { 'x-delivery-limit': -1, 'x-delayed-retry-type': 'all' },
      });
      expect(await s.mgmt.queue(`${NS}.me12.native.reject`)).toMatchObject({
        type: 'quorum',
        arguments: { 'x-delayed-retry-type': 'all', 'x-delayed-retry-min': 200, 'x-delayed-retry-max': 600 },
      });
    } else {
      const r = await mqlab(['delayed-retry', '--namespace', NS]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe(`SKIP delayed-retry: needs RabbitMQ 4.3 (this broker: ${s.broker.version})`);
      expect(await s.mgmt.queue(`${NS}.me12.native.reject`)).toBeNull();

      const junit = `/tmp/mqlab-delayed-retry-${process.pid}.junit.xml`;
      const { code, doc, report } = await runLabJson('delayed-retry', ['--namespace', NS, '--junit', junit]);
      expect(code).toBe(0);
      expect(report).toMatchObject({
        status: 'skipped',
        skipped: `needs RabbitMQ 4.3 (this broker: ${s.broker.version})`,
        checks: [],
      });
      expect(doc.result).toBe('passed');
      const xml = fs.readFileSync(junit, 'utf8');
      expect(xml).toContain('skipped="1"');
      expect(xml).toMatch(/<skipped message="needs RabbitMQ 4.3 \(this broker: [^"]+\)"\/>/);
    }
  });
});
