/**
 * `mqlab audit` on a cluster of three nodes (`mqlab up --nodes 3`, the cluster suite): the two checks
 * that only a cluster can show. A quorum queue declared with one replica (x-quorum-initial-group-size 1)
 * is quorum-few-replicas, one with three is not; a durable classic queue is classic-durable-on-cluster.
 * On one node both checks say why they do not apply (test/audit.int.test.ts).
 */
import amqp, { type ChannelModel } from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG, useNamespace } from './helpers.js';
import { Management } from '../src/broker/management.js';
import { auditDoc, findingsOf } from './audit-support.js';

const n = useNamespace(import.meta.url);
const NS = n.namespace;
const QUEUES = { one: n.q('one.replica'), three: n.q('three.replicas'), classic: n.q('classic') };
let conn: ChannelModel;

/** the three members running, as the management API reports them (the audit counts those) */
async function threeRunning(mgmt: Management, boundMs: number): Promise<void> {
  const end = Date.now() + boundMs;
  let running = 0;
  while (Date.now() < end) {
    const nodes = await mgmt.request<{ running?: boolean }[]>('GET', '/api/nodes?columns=name,running');
    running = nodes.filter((n) => n.running !== false).length;
    if (running === 3) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${running} of 3 nodes running after ${boundMs} ms: the cluster suite needs the whole cluster`);
}

beforeAll(async () => {
  // a file before this one may have stopped and started a member: the audit counts the running ones
  await threeRunning(new Management(CONFIG.mgmtUrl, CONFIG.vhost), 90_000); // within the 120 s hook timeout
  conn = await amqp.connect(CONFIG.amqpUrl);
  const ch = await conn.createChannel();
  for (const q of Object.values(QUEUES)) await ch.deleteQueue(q);
  await ch.assertQueue(QUEUES.one, {
    durable: true,
    arguments: { 'x-queue-type': 'quorum', 'x-quorum-initial-group-size': 1 },
  });
  await ch.assertQueue(QUEUES.three, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await ch.assertQueue(QUEUES.classic, { durable: true, arguments: { 'x-queue-type': 'classic' } });
  await ch.close();
});

afterAll(async () => {
  const ch = await conn.createChannel();
  for (const q of Object.values(QUEUES)) await ch.deleteQueue(q);
  await conn.close();
});

describe('mqlab audit on a cluster', () => {
  it('one replica of three nodes and a durable classic queue are findings; three replicas are not', async () => {
    const doc = await auditDoc();
    const status = (id: string) => doc.checks.find((c) => c.id === id)?.status;
    expect(status('quorum-few-replicas')).not.toBe('skipped');
    expect(status('classic-durable-on-cluster')).not.toBe('skipped');
    const mine = findingsOf(doc, NS).map((f) => [f.check, f.object.name]);
    expect(mine).toContainEqual(['quorum-few-replicas', QUEUES.one]);
    expect(mine).toContainEqual(['classic-durable-on-cluster', QUEUES.classic]);
    expect(mine.filter(([, name]) => name === QUEUES.three)).toEqual([]);
    const few = findingsOf(doc, NS).find((f) => f.check === 'quorum-few-replicas');
    // what the broker reported: one member, and the three nodes of the cluster
    expect((few?.evidence.members as string[]).length).toBe(1);
    expect((few?.evidence.nodes as string[]).length).toBe(3);
    expect(few?.problem).toContain('it survives the loss of 0 node(s)');
  });
});
