import { describe, expect, it } from 'vitest';
import { audit } from './run-audit.js';
import type { AuditBinding, AuditExchange, AuditQueue, Snapshot } from './snapshot.js';
import { parseVersion } from './target.js';
import { TopicTrie, topicMatch, words } from './topic.js';
import { ticker } from './ticker.js';
import { Interrupted } from '../core/errors.js';

const q = (name: string, args: Record<string, unknown> = {}, over: Partial<AuditQueue> = {}): AuditQueue => ({
  vhost: 'v',
  name,
  type: 'quorum',
  durable: true,
  autoDelete: false,
  exclusive: false,
  arguments: args,
  policy: null,
  policyName: null,
  operatorPolicyName: null,
  stats: null,
  members: null,
  ...over,
});
const x = (name: string, type: string, args: Record<string, unknown> = {}): AuditExchange => ({
  vhost: 'v',
  name,
  type,
  arguments: args,
});
const b = (source: string, destination: string, key: string, type: 'queue' | 'exchange' = 'queue'): AuditBinding => ({
  vhost: 'v',
  source,
  destination,
  destination_type: type,
  routing_key: key,
});
const snap = (over: Partial<Snapshot>): Snapshot => ({
  source: { kind: 'definitions', file: 'f.json' },
  broker: { product: 'RabbitMQ', version: '4.3.6' },
  vhosts: ['v'],
  queues: [],
  exchanges: [],
  bindings: [],
  policies: [],
  file: null,
  consumers: null,
  channels: null,
  nodes: null,
  ...over,
});
const run = (s: Snapshot) =>
  audit(s, { failOn: 'error', target: parseVersion(s.broker!.version)!, exact: true, targetFrom: 'source' });
const of = async (id: string, s: Snapshot) => (await run(s)).findings.filter((f) => f.check === id);
const dlx = (exchange: string, key?: string) => ({
  'x-dead-letter-exchange': exchange,
  ...(key === undefined ? {} : { 'x-dead-letter-routing-key': key }),
});

describe('topic patterns', () => {
  it('match keys as the broker splits them ("" has no word, # takes none or more)', () => {
    const m = (p: string, k: string) => topicMatch(words(p), words(k));
    expect([m('#', ''), m('a.#', 'a'), m('a.*', 'a'), m('a.*', 'a.b'), m('#.b', 'x.y.b'), m('*', '')]).toEqual([
      true,
      true,
      false,
      true,
      true,
      false,
    ]);
  });
  it('a trie answers which bindings some key of a carried pattern reaches, and a key none reaches', () => {
    const t = new TopicTrie<string>();
    for (const p of ['order.#', 'payment.created', '*.audit']) t.add(p, p);
    expect([...t.reach('order.created', true)]).toEqual(['order.#']);
    expect([...t.reach('payment.*')].sort()).toEqual(['*.audit', 'payment.created']); // payment.audit
    expect(t.unreached('payment.*')).toBe('payment.other');
    expect(t.unreached('order.*')).toBeNull();
    expect([...t.reach('#')].sort()).toEqual(['*.audit', 'order.#', 'payment.created']);
  });
});

describe('dead letters carry the keys that brought messages in', () => {
  it('a partial loss: order.* letters dropped while payment.* letters land in another team’s DLQ', async () => {
    const s = snap({
      queues: [q('work', dlx('dlx')), q('payments.dlq')],
      exchanges: [x('events', 'topic'), x('dlx', 'topic')],
      bindings: [
        b('events', 'work', 'order.*'),
        b('events', 'work', 'payment.*'),
        b('dlx', 'payments.dlq', 'payment.#'),
      ],
    });
    const [f] = await of('dead-letter-unroutable', s);
    expect(f).toMatchObject({
      object: { kind: 'exchange', name: 'dlx' },
      queues: ['work'],
      evidence: { dropped: { work: ['order.other'] }, routedElsewhere: { work: ['payments.dlq'] } },
    });
    expect(f?.problem).toMatch(
      /some of which no binding routes \(work: 'order.other'\): those letters are dropped while the others are routed/,
    );
    // a binding that contains every order.* key: nothing dropped
    const fixed = snap({ ...s, bindings: [...s.bindings, b('dlx', 'payments.dlq', 'order.#')] });
    expect(await of('dead-letter-unroutable', fixed)).toEqual([]);
  });

  it('a topic binding pattern is a set of keys, not a key: a literal binding on the DLX does not cover it', async () => {
    const s = snap({
      queues: [q('work', dlx('dlx')), q('dlq')],
      exchanges: [x('events', 'topic'), x('dlx', 'direct')],
      bindings: [b('events', 'work', 'order.*'), b('dlx', 'dlq', 'order.*')],
    });
    expect((await of('dead-letter-unroutable', s)).map((f) => f.evidence.dropped)).toEqual([{ work: ['order.other'] }]);
  });

  it('a queue with no binding gets its messages by name: its name is the key its letters carry', async () => {
    const s = snap({
      queues: [q('work', dlx('dlx')), q('dlq')],
      exchanges: [x('dlx', 'direct')],
      bindings: [b('dlx', 'dlq', 'work')],
    });
    expect(await of('dead-letter-unroutable', s)).toEqual([]);
  });

  it('amq.* exchanges exist in every vhost (an export never lists them); an alternate-exchange takes what no binding does', async () => {
    const s = snap({
      queues: [q('work', dlx('amq.topic', 'dead')), q('dlq')],
      bindings: [b('amq.topic', 'dlq', 'dead')],
    });
    expect([...(await of('dead-letter-exchange-missing', s)), ...(await of('dead-letter-unroutable', s))]).toEqual([]);
    const ae = snap({
      queues: [q('work', dlx('dlx', 'dead')), q('lost')],
      exchanges: [x('dlx', 'direct', { 'alternate-exchange': 'ae' }), x('ae', 'fanout')],
      bindings: [b('ae', 'lost', '')],
    });
    expect(await of('dead-letter-unroutable', ae)).toEqual([]);
  });

  it('one finding per cause: thirteen queues with one policy’s dead-letter exchange and no binding', async () => {
    const queues = Array.from({ length: 13 }, (_, i) => q(`q${i}`));
    const definition = { 'dead-letter-exchange': 'dlx', 'dead-letter-routing-key': 'dead' };
    const policies = [
      { vhost: 'v', name: 'dl', pattern: '^q', applyTo: 'queues', priority: 0, definition, operator: false },
    ];
    const s = snap({ queues, exchanges: [x('dlx', 'direct')], policies });
    const found = await of('dead-letter-unroutable', s);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ queues: queues.map((q) => q.name), evidence: { from: "policy 'dl'" } });
  });
});

describe('retries that reach other queues', () => {
  it('a TTL queue that dead-letters into a shared topic exchange delivers every retry to its subscribers', async () => {
    const s = snap({
      queues: [q('work', dlx('retry')), q('delay', { 'x-message-ttl': 1000, ...dlx('events') }), q('audit')],
      exchanges: [x('events', 'topic'), x('retry', 'fanout')],
      bindings: [b('events', 'work', 'order.created'), b('events', 'audit', 'order.#'), b('retry', 'delay', '')],
    });
    const [f] = await of('dead-letter-retry-fanout', s);
    expect(f).toMatchObject({
      object: { name: 'delay' },
      queues: ['audit'],
      evidence: { retried: { work: ['audit'] } },
    });
    expect((await of('retry-loop-unbounded', s)).map((f) => f.object.name)).toEqual(['work']);
    // the delay queue routes back by the work queue's name: nobody else sees the retry
    const fixed = snap({
      ...s,
      queues: [q('work', dlx('retry')), q('delay', { 'x-message-ttl': 1000, ...dlx('', 'work') }), q('audit')],
    });
    expect(await of('dead-letter-retry-fanout', fixed)).toEqual([]);
  });
});

describe('loops at scale (security review D8)', () => {
  /** the review's reproduction: every second queue dead-letters to a fanout exchange bound to the others */
  const fanout = (n: number, loop = false) =>
    snap({
      queues: Array.from({ length: n }, (_, i) => q(`q${i}`, dlx(loop || i % 2 ? 'dlx' : ''), { type: 'classic' })),
      exchanges: [x('dlx', 'fanout')],
      bindings: Array.from({ length: n / 2 }, (_, i) => b('dlx', `q${2 * i}`, '')),
    });

  it('10,000 queues through a fanout exchange: linear, well under a second of CPU (was 91 s)', async () => {
    // CPU time, not wall time: the machine may be busy with other work
    const cpu = process.cpuUsage();
    await run(fanout(10_000));
    const used = process.cpuUsage(cpu);
    expect((used.user + used.system) / 1000).toBeLessThan(3000);
  });

  it('the review’s file itself: a loop through the default exchange, found past 16 feeders too (keys as one group)', async () => {
    // odd queues dead-letter to the fanout, bound to the even ones, which dead-letter by the default
    // exchange with the keys the odd queues' letters carry (their names): back to them
    for (const n of [20, 100, 10_000]) {
      const found = await of('dead-letter-loop', fanout(n));
      expect(found, `${n} queues`).toHaveLength(1);
      expect(found[0]!.queues).toHaveLength(n);
    }
  });

  it('one loop of 10,000 queues is one finding listing them, not 10,000', async () => {
    const found = await of('dead-letter-loop', fanout(10_000, true));
    expect(found).toHaveLength(1);
    expect(found[0]!.queues).toHaveLength(5000); // the bound ones: the others only feed the loop
  });

  it('Ctrl-C is heard: the audit of 100,000 queues turns the event loop and stops when asked', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 20);
    const s = fanout(100_000);
    const r = audit(s, {
      failOn: 'error',
      target: [4, 3, 6],
      exact: true,
      targetFrom: 'source',
      tick: ticker(stop.signal),
    });
    await expect(r).rejects.toBeInstanceOf(Interrupted);
  });
});
