/**
 * `mqlab audit` on the real broker: for each finding, the bad topology and the state it needs are
 * declared in this file's namespace, the audit shows the finding on its object with its lab; then
 * the topology is fixed (or the state ended) and the finding is gone.
 */
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG, useNamespace } from './helpers.js';
import { Management } from '../src/broker/management.js';
import { auditDoc, auditUntil, findingsOf, type AuditDoc, type AuditFinding } from './audit-support.js';

const n = useNamespace(import.meta.url);
const NS = n.namespace;
const mgmt = new Management(CONFIG.mgmtUrl, CONFIG.vhost);
let conn: ChannelModel;
let ch: Channel;

const mine = (doc: AuditDoc) => findingsOf(doc, NS);
/** the findings of a check about the object `name` (a queue, or a consumer's queue), or listing it among its queues */
const of = (check: string, name: string) => (doc: AuditDoc) =>
  mine(doc).filter(
    (f) => f.check === check && ((f.object.queue ?? f.object.name) === name || f.queues?.includes(name)),
  );
const shows = (fs: AuditFinding[]) => fs.length > 0;
const none = (fs: AuditFinding[]) => fs.length === 0;
const classic = { durable: true, arguments: { 'x-queue-type': 'classic' } };

beforeAll(async () => {
  conn = await amqp.connect(CONFIG.amqpUrl);
  ch = await conn.createChannel();
  // what an earlier run left: queues, exchanges and policies of this namespace
  const left = await mgmt.request<{ name: string }[]>(
    'GET',
    `/api/queues/${encodeURIComponent(CONFIG.vhost)}?columns=name`,
  );
  for (const q of left.filter((q) => q.name.startsWith(`${NS}.`))) await ch.deleteQueue(q.name);
  for (const p of (await mgmt.policies()).filter((p) => p.name.startsWith(`${NS}-`))) await mgmt.deletePolicy(p.name);
});

afterAll(async () => {
  for (const p of (await mgmt.policies()).filter((p) => p.name.startsWith(`${NS}-`))) await mgmt.deletePolicy(p.name);
  const left = await mgmt.request<{ name: string }[]>(
    'GET',
    `/api/queues/${encodeURIComponent(CONFIG.vhost)}?columns=name`,
  );
  const c = await conn.createChannel();
  for (const q of left.filter((q) => q.name.startsWith(`${NS}.`))) await c.deleteQueue(q.name);
  for (const x of ['loop.dlx', 'dead', 'gone', 'dl.dead', 'events', 'pdlx', 'events2', 'retry'])
    await c.deleteExchange(n.x(x));
  await conn.close();
});

describe('dead-letter routes (definitions)', { timeout: 240_000 }, () => {
  it('a loop back into its own queue: dead-letter-loop (dlx-loop); a DLQ outside it instead: gone', async () => {
    const q = n.q('loop');
    await ch.assertExchange(n.x('loop.dlx'), 'direct', { durable: true });
    await ch.assertQueue(q, {
      durable: true,
      arguments: {
        'x-queue-type': 'quorum',
        'x-dead-letter-exchange': n.x('loop.dlx'),
        'x-dead-letter-routing-key': 'k',
      },
    });
    await ch.bindQueue(q, n.x('loop.dlx'), 'k');
    const [f] = of('dead-letter-loop', q)(await auditDoc());
    expect(f).toMatchObject({
      severity: 'error',
      vhost: CONFIG.vhost,
      object: { kind: 'queue', name: q },
      lab: 'dlx-loop',
    });
    expect(f?.evidence.path).toEqual([q, n.x('loop.dlx'), q]);
    await ch.assertQueue(n.q('loop.dlq'), classic);
    await ch.bindQueue(n.q('loop.dlq'), n.x('loop.dlx'), 'k');
    await ch.unbindQueue(q, n.x('loop.dlx'), 'k');
    const after = await auditDoc();
    expect(of('dead-letter-loop', q)(after)).toEqual([]);
    expect(of('dead-letter-unroutable', q)(after)).toEqual([]);
  });

  it('a dead-letter exchange that does not exist, then one that routes nothing: at-most-once-drop; bound: gone', async () => {
    const q = n.q('lost');
    await ch.assertQueue(q, {
      durable: true,
      arguments: {
        'x-queue-type': 'quorum',
        'x-dead-letter-exchange': n.x('gone'),
        'x-dead-letter-routing-key': 'dead',
      },
    });
    expect(of('dead-letter-exchange-missing', q)(await auditDoc())).toMatchObject([
      {
        severity: 'error',
        object: { kind: 'exchange', name: n.x('gone') },
        queues: [q],
        lab: 'at-most-once-drop',
        evidence: { deadLetterExchange: n.x('gone'), from: 'argument x-dead-letter-exchange' },
      },
    ]);
    await ch.assertExchange(n.x('gone'), 'direct', { durable: true });
    const unbound = await auditDoc();
    expect(of('dead-letter-exchange-missing', q)(unbound)).toEqual([]);
    expect(of('dead-letter-unroutable', q)(unbound)).toMatchObject([
      {
        object: { kind: 'exchange', name: n.x('gone') },
        queues: [q],
        lab: 'at-most-once-drop',
        evidence: { deadLetterRoutingKey: 'dead' },
      },
    ]);
    await ch.assertQueue(n.q('lost.dlq'), classic);
    await ch.bindQueue(n.q('lost.dlq'), n.x('gone'), 'dead');
    expect(of('dead-letter-unroutable', q)(await auditDoc())).toEqual([]);
  });

  it('at-least-once from a policy without reject-publish: at-least-once-fallback (hold); with it: gone', async () => {
    const q = n.q('alo');
    await ch.assertExchange(n.x('dead'), 'direct', { durable: true });
    await ch.assertQueue(q, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    await ch.assertQueue(n.q('alo.dlq'), classic);
    await ch.bindQueue(n.q('alo.dlq'), n.x('dead'), q);
    const policy = { 'dead-letter-exchange': n.x('dead'), 'dead-letter-strategy': 'at-least-once' };
    await mgmt.putPolicy({ name: n.p('alo'), pattern: n.exact(q), definition: policy, applyTo: 'queues' });
    const [f] = await auditUntil(shows, of('at-least-once-fallback', q));
    expect(f).toMatchObject({
      severity: 'error',
      object: { name: q },
      lab: 'hold',
      evidence: { overflow: 'drop-head', strategyFrom: `policy '${n.p('alo')}'` },
    });
    await mgmt.putPolicy({
      name: n.p('alo'),
      pattern: n.exact(q),
      definition: { ...policy, overflow: 'reject-publish' },
      applyTo: 'queues',
    });
    await auditUntil(none, of('at-least-once-fallback', q));
  });
});

describe('routes by the keys letters carry: each set up, shown by the broker, fixed', { timeout: 240_000 }, () => {
  it('a partial loss: order.* letters dropped while payment.* letters land in another DLQ; a binding for order.#: gone', async () => {
    const work = n.q('partial');
    const dlq = n.q('partial.pay');
    await ch.assertExchange(n.x('events'), 'topic', { durable: true });
    await ch.assertExchange(n.x('pdlx'), 'topic', { durable: true });
    await ch.assertQueue(work, {
      durable: true,
      arguments: { 'x-queue-type': 'quorum', 'x-dead-letter-exchange': n.x('pdlx') },
    });
    await ch.bindQueue(work, n.x('events'), 'order.*');
    await ch.bindQueue(work, n.x('events'), 'payment.*');
    await ch.assertQueue(dlq, classic);
    await ch.bindQueue(dlq, n.x('pdlx'), 'payment.#');
    const [f] = of('dead-letter-unroutable', work)(await auditDoc());
    expect(f).toMatchObject({
      object: { kind: 'exchange', name: n.x('pdlx') },
      evidence: { dropped: { [work]: ['order.other'] } },
    });
    // what the broker does: both rejected, only the payment letter arrives
    ch.publish(n.x('events'), 'order.created', Buffer.from('o'));
    ch.publish(n.x('events'), 'payment.created', Buffer.from('p'));
    for (let k = 0; k < 2; k++) ch.reject(await waitGet(work), false);
    expect((await waitGet(dlq)).fields.routingKey).toBe('payment.created');
    await expect.poll(async () => (await ch.checkQueue(dlq)).messageCount, { timeout: 5000 }).toBe(0);
    expect((await ch.checkQueue(work)).messageCount).toBe(0); // the order letter: nowhere
    await ch.bindQueue(dlq, n.x('pdlx'), 'order.#');
    expect(of('dead-letter-unroutable', work)(await auditDoc())).toEqual([]);
  });

  it('a retry that fans out: every retry also reaches another subscriber; the delay queue keyed back to its queue: gone', async () => {
    const work = n.q('fan.work');
    const delay = n.q('fan.delay');
    const other = n.q('fan.audit');
    await ch.assertExchange(n.x('events2'), 'topic', { durable: true });
    await ch.assertExchange(n.x('retry'), 'fanout', { durable: true });
    await ch.assertQueue(work, {
      durable: true,
      arguments: { 'x-queue-type': 'quorum', 'x-dead-letter-exchange': n.x('retry') },
    });
    await ch.bindQueue(work, n.x('events2'), 'o.created');
    await ch.assertQueue(delay, {
      durable: true,
      arguments: { 'x-queue-type': 'quorum', 'x-message-ttl': 300, 'x-dead-letter-exchange': n.x('events2') },
    });
    await ch.bindQueue(delay, n.x('retry'), '');
    await ch.assertQueue(other, classic);
    await ch.bindQueue(other, n.x('events2'), 'o.#');
    const [f] = of('dead-letter-retry-fanout', delay)(await auditDoc());
    expect(f).toMatchObject({ severity: 'warning', queues: [other], evidence: { retried: { [work]: [other] } } });
    // what the broker does: one publish, one copy for the other subscriber; one retry, a second copy
    ch.publish(n.x('events2'), 'o.created', Buffer.from('x'));
    ch.ack(await waitGet(other));
    ch.reject(await waitGet(work), false);
    const again = await waitGet(other); // the retry, after the delay queue's TTL
    expect(again.properties.headers?.['x-death']).toBeDefined();
    ch.ack(again);
    ch.ack(await waitGet(work));
    // the fix: the delay queue sends letters back by the work queue's name through the default exchange
    await ch.deleteQueue(delay);
    await ch.assertQueue(delay, {
      durable: true,
      arguments: {
        'x-queue-type': 'quorum',
        'x-message-ttl': 300,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': work,
      },
    });
    await ch.bindQueue(delay, n.x('retry'), '');
    expect(of('dead-letter-retry-fanout', delay)(await auditDoc())).toEqual([]);
  });

  it('queue-mode in a policy: no effect since 3.12 (queue-mode-no-effect); the policy without it: gone', async () => {
    const q = n.q('lazy');
    await ch.assertQueue(q, classic);
    await mgmt.putPolicy({
      name: n.p('lazy'),
      pattern: n.exact(q),
      definition: { 'queue-mode': 'lazy' },
      applyTo: 'queues',
    });
    const doc = await auditDoc();
    const major = Number(/^(\d+)\.(\d+)/.exec(doc.broker.version)![1]);
    const minor = Number(/^(\d+)\.(\d+)/.exec(doc.broker.version)![2]);
    const policyFinding = (d: AuditDoc) =>
      d.findings.filter((f) => f.check === 'queue-mode-no-effect' && f.object.name === n.p('lazy'));
    if (major > 3 || minor >= 12) expect(policyFinding(doc)).toMatchObject([{ severity: 'info' }]);
    else expect(policyFinding(await auditDoc(['--target-version', '4.3']))).toMatchObject([{ severity: 'info' }]);
    await mgmt.putPolicy({
      name: n.p('lazy'),
      pattern: n.exact(q),
      definition: { 'max-length': 1000 },
      applyTo: 'queues',
    });
    expect(policyFinding(await auditDoc(['--target-version', '4.3']))).toEqual([]);
  });

  it('a policy pattern with a back-reference (valid PCRE, held by the broker): reported, not run; plain: gone', async () => {
    const name = n.p('backref');
    const found = (d: AuditDoc) =>
      d.findings.filter((f) => f.check === 'policy-pattern-invalid' && f.object.name === name);
    await mgmt.putPolicy({ name, pattern: `^(${NS})\\.\\1$`, definition: { 'max-length': 1000 }, applyTo: 'queues' });
    expect(found(await auditDoc())).toMatchObject([
      { severity: 'info', evidence: { reason: expect.stringMatching(/back-reference/) as unknown } },
    ]);
    await mgmt.putPolicy({ name, pattern: `^${NS}\\.${NS}$`, definition: { 'max-length': 1000 }, applyTo: 'queues' });
    expect(found(await auditDoc())).toEqual([]);
  });

  it('classic mirroring where the broker holds it (3.10): for an upgrade to 4.3 an error; the policy without ha-*: gone', async () => {
    const doc = await auditDoc();
    if (!doc.broker.version.startsWith('3.')) return; // 4.x refuses the policy: test/audit-import.int.test.ts shows it
    const q = n.q('mirrored');
    await ch.assertQueue(q, classic);
    await mgmt.putPolicy({ name: n.p('ha'), pattern: n.exact(q), definition: { 'ha-mode': 'all' }, applyTo: 'queues' });
    const mirror = (d: AuditDoc) =>
      d.findings.filter((f) => f.check === 'classic-mirroring-policy' && f.object.name === n.p('ha'));
    // the broker applies the policy a moment after it is set: until the queue shows it
    const [f] = await auditUntil((fs) => Boolean(fs[0]?.queues?.includes(q)), mirror, 45_000, [
      '--target-version',
      '4.3',
    ]);
    expect(f).toMatchObject({ severity: 'error', queues: [q], lab: 'quorum-failover' });
    expect(mirror(await auditDoc())).toMatchObject([{ severity: 'info' }]); // on 3.10 itself it works
    await mgmt.putPolicy({
      name: n.p('ha'),
      pattern: n.exact(q),
      definition: { 'max-length': 1000 },
      applyTo: 'queues',
    });
    expect(mirror(await auditDoc(['--target-version', '4.3']))).toEqual([]);
  });
});

describe('live state', { timeout: 240_000 }, () => {
  it('a requeue storm: requeue-storm (requeue-storm); the storm stopped: gone', async () => {
    const q = n.q('storm');
    await ch.assertQueue(q, classic);
    for (let i = 0; i < 20; i++) ch.sendToQueue(q, Buffer.from(`m${i}`));
    const storm = await conn.createChannel();
    await storm.prefetch(20);
    await storm.consume(q, (m) => m && storm.nack(m, false, true));
    const [f] = await auditUntil(shows, of('requeue-storm', q));
    expect(f).toMatchObject({ severity: 'error', object: { kind: 'queue', name: q }, lab: 'requeue-storm' });
    expect(f?.evidence.redeliverRate).toBeGreaterThanOrEqual(20);
    await storm.close();
    await auditUntil(none, of('requeue-storm', q), 60_000);
  });

  it('a consumer that acks nothing while messages wait: unacked-pile (auto-ack-loss); its acks: gone', async () => {
    const q = n.q('stuck');
    await ch.assertQueue(q, classic);
    for (let i = 0; i < 20; i++) ch.sendToQueue(q, Buffer.from(`m${i}`));
    const stuck = await conn.createChannel();
    await stuck.prefetch(5);
    const held: amqp.ConsumeMessage[] = [];
    await stuck.consume(q, (m) => m && held.push(m));
    const [f] = await auditUntil(shows, of('unacked-pile', q));
    expect(f).toMatchObject({
      severity: 'warning',
      object: { name: q },
      lab: 'auto-ack-loss',
      evidence: { unacked: 5, ready: 15 },
    });
    await stuck.close(); // the held messages go back: nothing unacked
    await auditUntil(none, of('unacked-pile', q));
  });

  it('auto-ack and no prefetch: consumer-auto-ack (auto-ack-loss), consumer-unlimited-prefetch (consumer-crash); fixed consumers: gone', async () => {
    const q = n.q('consumers');
    await ch.assertQueue(q, classic);
    const bad = await conn.createChannel();
    const noAck = await bad.consume(q, () => {}, { noAck: true });
    const greedy = await bad.consume(q, () => {});
    // the management API lists a new consumer, and drops a closed channel's, a moment later on a busy broker
    const both = (doc: AuditDoc) => [...of('consumer-auto-ack', q)(doc), ...of('consumer-unlimited-prefetch', q)(doc)];
    const found = await auditUntil((fs) => fs.length === 2, both);
    expect(found.filter((f) => f.check === 'consumer-auto-ack')).toMatchObject([
      { severity: 'warning', object: { kind: 'consumer', name: noAck.consumerTag, queue: q }, lab: 'auto-ack-loss' },
    ]);
    expect(found.filter((f) => f.check === 'consumer-unlimited-prefetch')).toMatchObject([
      { object: { kind: 'consumer', name: greedy.consumerTag, queue: q }, lab: 'consumer-crash' },
    ]);
    await bad.close();
    const good = await conn.createChannel();
    await good.prefetch(10);
    await good.consume(q, (m) => m && good.ack(m));
    expect(await auditUntil(none, both)).toEqual([]);
    await good.close();
  });

  it('a channel that publishes without confirms: publisher-without-confirms (publish-confirm); closed: gone', async () => {
    const q = n.q('plain');
    await ch.assertQueue(q, classic);
    const own = await amqp.connect(CONFIG.amqpUrl);
    const port = (own.connection as unknown as { stream: { localPort: number } }).stream.localPort;
    const plain = await own.createChannel();
    plain.sendToQueue(q, Buffer.from('unconfirmed'));
    const mineCh = (doc: AuditDoc) =>
      doc.findings.filter((f) => f.check === 'publisher-without-confirms' && f.object.name.includes(`:${port} -> `));
    const [f] = await auditUntil(shows, mineCh);
    expect(f).toMatchObject({
      severity: 'warning',
      object: { kind: 'channel' },
      lab: 'publish-confirm',
      evidence: { published: 1 },
    });
    await own.close();
    await auditUntil(none, mineCh);
  });

  it('a dead-letter queue that only grows: dead-letter-queue-grows (archive); bounded by a policy: gone', async () => {
    const work = n.q('dl.work');
    const dlq = n.q('dl.dlq');
    await ch.assertExchange(n.x('dl.dead'), 'direct', { durable: true });
    await ch.assertQueue(dlq, classic);
    await ch.bindQueue(dlq, n.x('dl.dead'), 'dead');
    await ch.assertQueue(work, {
      durable: true,
      arguments: {
        'x-queue-type': 'classic',
        'x-dead-letter-exchange': n.x('dl.dead'),
        'x-dead-letter-routing-key': 'dead',
      },
    });
    ch.sendToQueue(work, Buffer.from('poison'));
    const m = await waitGet(work);
    ch.reject(m, false);
    const [f] = await auditUntil(shows, of('dead-letter-queue-grows', dlq));
    expect(f).toMatchObject({ severity: 'warning', object: { name: dlq }, lab: 'archive', evidence: { messages: 1 } });
    await mgmt.putPolicy({
      name: n.p('dlq'),
      pattern: n.exact(dlq),
      definition: { 'max-length': 10_000 },
      applyTo: 'queues',
    });
    await auditUntil(none, of('dead-letter-queue-grows', dlq));
  });

  it('a delay queue fed per-message TTLs: delay-queue-per-message-ttl (retry-ladder); a queue TTL: gone', async () => {
    const q = n.q('delay');
    await ch.assertQueue(q, {
      durable: true,
      arguments: {
        'x-queue-type': 'classic',
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': n.q('delay.work'),
      },
    });
    ch.sendToQueue(q, Buffer.from('long'), { expiration: '600000' });
    ch.sendToQueue(q, Buffer.from('short'), { expiration: '1000' });
    const [f] = await auditUntil(shows, of('delay-queue-per-message-ttl', q));
    expect(f).toMatchObject({ severity: 'warning', object: { name: q }, lab: 'retry-ladder' });
    await mgmt.putPolicy({
      name: n.p('delay'),
      pattern: n.exact(q),
      definition: { 'message-ttl': 1000 },
      applyTo: 'queues',
    });
    await auditUntil(none, of('delay-queue-per-message-ttl', q));
  });

  it('a quorum queue whose message came back, no dead-letter target: quorum-default-delivery-limit on 4.x (dead-letter-reasons), skipped below 4.0; a delivery-limit: gone', async () => {
    const q = n.q('poison');
    await ch.assertQueue(q, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    ch.sendToQueue(q, Buffer.from('poison'));
    ch.reject(await waitGet(q), true);
    ch.ack(await waitGet(q));
    const first = await auditDoc();
    const check = first.checks.find((c) => c.id === 'quorum-default-delivery-limit');
    const major = Number(/^(\d+)/.exec((first as unknown as { broker: { version: string } }).broker.version)?.[1]);
    if (major < 4) {
      expect(check).toMatchObject({
        status: 'skipped',
        skipped: expect.stringMatching(/has no default delivery limit/) as unknown,
      });
      return;
    }
    const [f] = await auditUntil(shows, of('quorum-default-delivery-limit', q));
    expect(f).toMatchObject({ severity: 'warning', object: { name: q }, lab: 'dead-letter-reasons' });
    await mgmt.putPolicy({
      name: n.p('poison'),
      pattern: n.exact(q),
      definition: { 'delivery-limit': 5 },
      applyTo: 'queues',
    });
    await auditUntil(none, of('quorum-default-delivery-limit', q));
  });

  it('one node: the cluster checks say they were skipped', async () => {
    const doc = await auditDoc();
    for (const id of ['quorum-few-replicas', 'classic-durable-on-cluster'])
      expect(doc.checks.find((c) => c.id === id)).toMatchObject({
        status: 'skipped',
        skipped: expect.stringMatching(/^one node/) as unknown,
      });
  });
});

/** basic.get until a message comes (a publish on another channel may not have arrived yet) */
async function waitGet(q: string): Promise<amqp.GetMessage> {
  for (let i = 0; i < 100; i++) {
    const m = await ch.get(q);
    if (m) return m;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no message in ${q}`);
}
