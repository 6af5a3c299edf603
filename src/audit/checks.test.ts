import { describe, expect, it } from 'vitest';
import { audit as run } from './run-audit.js';
import { CHECKS } from './checks.js';
import type { Severity } from './finding.js';
import type { AuditQueue, QueueStats, Snapshot } from './snapshot.js';
import { parseVersion } from './target.js';

/** the audit judged for the snapshot's own version */
const audit = (s: Snapshot, failOn: Severity | 'never') =>
  run(s, { failOn, target: parseVersion(s.broker?.version)!, exact: true, targetFrom: 'source' });

const STATS: QueueStats = {
  messages: 0,
  ready: 0,
  unacked: 0,
  consumers: 0,
  redeliverRate: 0,
  deliverRate: 0,
  ackRate: 0,
  redelivered: 0,
};
const q = (
  name: string,
  over: Partial<Omit<AuditQueue, 'stats'>> & { stats?: Partial<QueueStats> | null } = {},
): AuditQueue => ({
  vhost: 'v',
  name,
  type: 'quorum',
  durable: true,
  autoDelete: false,
  exclusive: false,
  arguments: {},
  policy: null,
  policyName: null,
  operatorPolicyName: null,
  members: null,
  ...over,
  stats: over.stats === null ? null : { ...STATS, ...over.stats },
});
const snap = (over: Partial<Snapshot>): Snapshot => ({
  source: { kind: 'management', url: 'http://h:15672' },
  broker: { product: 'RabbitMQ', version: '4.3.6' },
  vhosts: ['v'],
  queues: [],
  exchanges: [],
  bindings: [],
  policies: [],
  file: null,
  consumers: [],
  channels: [],
  nodes: ['n1'],
  ...over,
});
const x = (name: string, type = 'direct', args: Record<string, unknown> = {}) => ({
  vhost: 'v',
  name,
  type,
  arguments: args,
});
const bind = (source: string, destination: string, key: string) => ({
  vhost: 'v',
  source,
  destination,
  destination_type: 'queue' as const,
  routing_key: key,
});
/** the findings of one check as [object name, …]; a finding about several queues as its queues */
const found = async (id: string, s: Snapshot) =>
  (await audit(s, 'error')).findings
    .filter((f) => f.check === id)
    .flatMap((f) =>
      f.object.kind === 'queue' || f.object.kind === 'consumer' || f.object.kind === 'channel'
        ? (f.queues ?? [f.object.name])
        : (f.queues ?? [f.object.name]),
    );

describe('dead-letter routes', () => {
  const dlx = (key?: string) => ({
    'x-dead-letter-exchange': 'dlx',
    ...(key ? { 'x-dead-letter-routing-key': key } : {}),
  });
  it('a loop without a TTL hop is an error; through a TTL queue it is a retry loop (info)', async () => {
    const loop = snap({
      queues: [q('work', { arguments: dlx('k') })],
      exchanges: [x('dlx')],
      bindings: [bind('dlx', 'work', 'k')],
    });
    expect(await found('dead-letter-loop', loop)).toEqual(['work']);
    const retry = snap({
      queues: [
        q('work', { arguments: dlx('k') }),
        q('delay', {
          arguments: { 'x-message-ttl': 500, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': 'work' },
        }),
      ],
      exchanges: [x('dlx')],
      bindings: [bind('dlx', 'delay', 'k')],
    });
    expect(await found('dead-letter-loop', retry)).toEqual([]);
    expect(await found('retry-loop-unbounded', retry)).toEqual(['work']);
    // 4.3: the count a dead-lettered copy carries is the one the next queue's limit reads
    expect((await audit(retry, 'error')).findings[0]?.problem).toMatch(/after 20 such passes/);
    // 4.0–4.2 and 3.10: it is not (source-audit-2 #1, #4)
    for (const version of ['4.2.9', '4.0.5', '3.10.8'])
      expect(
        (await audit({ ...retry, broker: { product: 'RabbitMQ', version } }, 'error')).findings[0]?.problem,
      ).not.toMatch(/passes/);
  });

  it('a missing dead-letter exchange, and one that routes the key nowhere, lose the letters', async () => {
    const missing = snap({ queues: [q('work', { arguments: dlx('k') })] });
    expect(await found('dead-letter-exchange-missing', missing)).toEqual(['work']);
    expect(await found('dead-letter-unroutable', missing)).toEqual([]);
    const unbound = snap({
      queues: [q('work', { arguments: dlx('k') }), q('dlq')],
      exchanges: [x('dlx')],
      bindings: [bind('dlx', 'dlq', 'other')],
    });
    expect(await found('dead-letter-unroutable', unbound)).toEqual(['work']);
    const bound = snap({ ...unbound, bindings: [bind('dlx', 'dlq', 'k')] });
    expect(await found('dead-letter-unroutable', bound)).toEqual([]);
    // without a dead-letter routing key the letter keeps its own keys (the queue's name via the default exchange, its bindings)
    const ownKey = snap({
      queues: [q('work', { arguments: dlx() }), q('dlq')],
      exchanges: [x('dlx', 'fanout')],
      bindings: [bind('dlx', 'dlq', '')],
    });
    expect(await found('dead-letter-unroutable', ownKey)).toEqual([]);
    // through the default exchange to a queue that does not exist
    const noQueue = snap({
      queues: [q('work', { arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': 'gone' } })],
    });
    expect(await found('dead-letter-unroutable', noQueue)).toEqual(['work']);
    // a policy sets it as well as an argument
    const byPolicy = snap({ queues: [q('work', { policy: { 'dead-letter-exchange': 'nope' } })] });
    expect(await found('dead-letter-exchange-missing', byPolicy)).toEqual(['work']);
  });

  it('at-least-once needs a quorum queue, a dead-letter exchange and reject-publish', async () => {
    const policy = { 'dead-letter-strategy': 'at-least-once', 'dead-letter-exchange': 'dlx' };
    const s = (over: Partial<AuditQueue>) =>
      snap({ queues: [q('h', { policy, policyName: 'alo', ...over })], exchanges: [x('dlx')] });
    expect(await found('at-least-once-fallback', s({}))).toEqual(['h']);
    expect(await found('at-least-once-fallback', s({ policy: { ...policy, overflow: 'reject-publish' } }))).toEqual([]);
    const noDlx = s({ policy: { 'dead-letter-strategy': 'at-least-once', overflow: 'reject-publish' } });
    expect(await found('at-least-once-fallback', noDlx)).toEqual(['h']);
  });

  it('quorum queues: overflow is the policy’s even where the argument says otherwise (source-audit-2 #14)', async () => {
    const policy = { 'dead-letter-strategy': 'at-least-once', 'dead-letter-exchange': 'dlx', overflow: 'drop-head' };
    const argWins = snap({
      queues: [q('h', { policy, policyName: 'p', arguments: { 'x-overflow': 'reject-publish' } })],
      exchanges: [x('dlx')],
    });
    const [f] = (await audit(argWins, 'error')).findings.filter((f) => f.check === 'at-least-once-fallback');
    expect(f?.evidence).toMatchObject({
      overflow: 'drop-head',
      overflowFrom: expect.stringMatching(/^policy 'p' \(it wins over argument x-overflow/) as unknown,
    });
    const fixed = snap({
      queues: [
        q('h', {
          policy: { ...policy, overflow: 'reject-publish' },
          policyName: 'p',
          arguments: { 'x-overflow': 'drop-head' },
        }),
      ],
      exchanges: [x('dlx')],
    });
    expect(await found('at-least-once-fallback', fixed)).toEqual([]);
  });
});

describe('live statistics', () => {
  it('a quorum queue with redeliveries, no dead-letter target and the default limit: 4.x only', async () => {
    const s = snap({
      queues: [
        q('w', { stats: { redelivered: 3 } }),
        q('ok', { stats: { redelivered: 3 }, arguments: { 'x-delivery-limit': 5 } }),
        q('calm'),
      ],
    });
    expect(await found('quorum-default-delivery-limit', s)).toEqual(['w']);
    const old = (await audit({ ...s, broker: { product: 'RabbitMQ', version: '3.10.8' } }, 'error')).checks.find(
      (c) => c.id === 'quorum-default-delivery-limit',
    );
    expect(old?.status).toBe('skipped');
  });

  it('a delay queue fed per-message TTLs; a DLQ that only grows', async () => {
    const s = snap({
      queues: [
        q('delay', { arguments: { 'x-dead-letter-exchange': 'x' }, stats: { ready: 4 } }),
        q('bounded', { arguments: { 'x-dead-letter-exchange': 'x', 'x-max-length': 1 }, stats: { ready: 1 } }),
        q('work', {
          arguments: { 'x-dead-letter-exchange': 'x', 'x-dead-letter-routing-key': 'dead' },
          stats: { consumers: 1 },
        }),
        q('dlq', { stats: { messages: 7 } }),
      ],
      exchanges: [x('x')],
      bindings: [bind('x', 'dlq', 'dead')],
    });
    expect(await found('delay-queue-per-message-ttl', s)).toEqual(['delay']);
    expect(await found('dead-letter-queue-grows', s)).toEqual(['dlq']);
    const consumed = {
      ...s,
      queues: s.queues.map((x) => (x.name === 'dlq' ? q('dlq', { stats: { messages: 7, consumers: 1 } }) : x)),
    };
    expect(await found('dead-letter-queue-grows', consumed)).toEqual([]);
  });

  it('a requeue storm, a stuck consumer, auto-ack, no prefetch, no confirms', async () => {
    const s = snap({
      queues: [
        q('storm', { stats: { redeliverRate: 300, deliverRate: 310 } }),
        q('busy', { stats: { redeliverRate: 30, deliverRate: 900 } }),
        q('stuck', { stats: { consumers: 1, unacked: 5, ready: 20 } }),
      ],
      consumers: [
        { vhost: 'v', queue: 'a', tag: 'noack', channel: 'c1', ackRequired: false, prefetch: 0, channelPrefetch: 0 },
        { vhost: 'v', queue: 'a', tag: 'greedy', channel: 'c1', ackRequired: true, prefetch: 0, channelPrefetch: 0 },
        { vhost: 'v', queue: 'a', tag: 'fine', channel: 'c2', ackRequired: true, prefetch: 10, channelPrefetch: 0 },
      ],
      channels: [
        { vhost: 'v', name: 'c1', user: 'app', confirm: false, published: 3 },
        { vhost: 'v', name: 'c2', user: 'app', confirm: true, published: 3 },
        { vhost: 'v', name: 'c3', user: 'app', confirm: false, published: 0 },
      ],
    });
    expect(await found('requeue-storm', s)).toEqual(['storm']);
    expect(await found('unacked-pile', s)).toEqual(['stuck']);
    expect(await found('consumer-auto-ack', s)).toEqual(['noack']);
    expect(await found('consumer-unlimited-prefetch', s)).toEqual(['greedy']);
    expect(await found('publisher-without-confirms', s)).toEqual(['c1']);
  });

  it('on a cluster: too few quorum replicas, durable classic queues; on one node both are skipped', async () => {
    const queues = [
      q('q1', { members: ['n1'] }),
      q('q3', { members: ['n1', 'n2', 'n3'] }),
      q('c', { type: 'classic' }),
      q('tmp', { type: 'classic', exclusive: true }),
    ];
    const cluster = snap({ queues, nodes: ['n1', 'n2', 'n3'] });
    expect(await found('quorum-few-replicas', cluster)).toEqual(['q1']);
    expect(await found('classic-durable-on-cluster', cluster)).toEqual(['c']);
    // before 4.0 an ha-mode policy mirrors it (source-audit-2 #16): left out on 3.10, reported on 4.x
    const mirrored = [...queues, q('m', { type: 'classic', policy: { 'ha-mode': 'all' } })];
    const on = (version: string) =>
      snap({ queues: mirrored, nodes: ['n1', 'n2', 'n3'], broker: { product: 'RabbitMQ', version } });
    expect(await found('classic-durable-on-cluster', on('3.10.8'))).toEqual(['c']);
    expect(await found('classic-durable-on-cluster', on('4.3.6'))).toEqual(['c', 'm']);
    const one = (await audit(snap({ queues }), 'error')).checks.filter(
      (c) => c.id.includes('replicas') || c.id.includes('cluster'),
    );
    expect(one.map((c) => c.status)).toEqual(['skipped', 'skipped']);
  });

  it('offline (no live state): the checks that need statistics or the cluster say they were skipped', async () => {
    const r = await audit(
      snap({ consumers: null, channels: null, nodes: null, queues: [q('w', { stats: null })] }),
      'error',
    );
    const skipped = r.checks.filter((c) => c.status === 'skipped').map((c) => c.id);
    // the checks of a definitions file (needs: file) skip here too: this snapshot has no file
    expect(skipped).toEqual(CHECKS.filter((c) => c.needs.length).map((c) => c.id));
    expect(r.checks.find((c) => c.id === 'consumer-auto-ack')?.skipped).toMatch(/needs live statistics/);
  });
});

describe('--fail-on', () => {
  const s = snap({ queues: [q('stuck', { stats: { consumers: 1, unacked: 5, ready: 20 } })] });
  it('fails at or above the severity it names, never with never', async () => {
    expect((await audit(s, 'error')).failed).toBe(false);
    expect((await audit(s, 'warning')).failed).toBe(true);
    expect((await audit(s, 'info')).failed).toBe(true);
    expect((await audit(s, 'never')).failed).toBe(false);
  });
});
