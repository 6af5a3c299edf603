import { describe, expect, it } from 'vitest';
import { buildSteps, commonPrefix, statusQueue } from './steps.js';
import { goneLines } from './broker-wins.js';
import type { TimelineEvent } from './html-layout.js';
import type { Topology } from '../broker/topology.js';

const T0 = Date.UTC(2026, 0, 1);
const ev = (source: string, ms: number, fields: Record<string, string> = {}, process?: string): TimelineEvent => ({
  source,
  ...(process ? { process } : {}),
  timestamp: new Date(T0 + ms).toISOString(),
  ...fields,
  line: `[${source}]`,
});
/** a checkpoint's view as the runner puts it in its event: taken at T0 + 50 ms, the broker's reading settled */
const settledView = (checkpoint: string, queues: object[], bindings: object[], policies: unknown[]) =>
  ({
    lab: 'l',
    checkpoint,
    seq: 1,
    description: null,
    queues,
    broker: { at: new Date(T0 + 50).toISOString(), reading: 'settled', bindings, policies },
    facts: {},
    at: new Date(T0 + 50).toISOString(),
  }) as unknown as string;
const topology: Topology = {
  queues: [
    { name: 'work', args: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': 'retry' } },
    {
      name: 'retry',
      args: { 'x-message-ttl': 1000, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': 'work' },
    },
    { name: 'dlq' },
  ],
};

describe('the bench steps', () => {
  const events = [
    ev('producer', 0, { messageId: 'm1', aggregateId: 'order-1', status: 'published' }),
    ev('producer', 5, { destination: 'work', confirmed: '1', status: 'done' }),
    // logged late (a child's line), happened early: the step goes where it happened
    ev(
      'consumer',
      20,
      { messageId: 'm1', destination: 'work', attempt: '1', redelivered: 'false', status: 'received' },
      'consumer',
    ),
    ev('checkpoint', 21, {
      checkpoint: 'before-retry',
      process: 'consumer',
      messageId: 'm1',
      token: 't1',
      status: 'waiting',
    }),
    ev('replay-gate', 21, { checkpoint: 'before-retry', messageId: 'm1', status: 'waiting' }, 'consumer'),
    ev('checkpoint', 900, {
      checkpoint: 'before-retry',
      process: 'consumer',
      messageId: 'm1',
      token: 't1',
      status: 'released',
    }),
    ev('consumer', 22, { messageId: 'm1', destination: 'work', attempt: '1', status: 'rejected' }, 'consumer'),
    ev(
      'consumer',
      1030,
      {
        messageId: 'm1',
        destination: 'work',
        attempt: '2',
        redelivered: 'true',
        xDeath: 'retry:expired:1',
        status: 'received',
      },
      'consumer',
    ),
    ev('consumer', 1040, { messageId: 'm1', destination: 'work', attempt: '2', status: 'poison_to_dlq' }, 'consumer'),
    ev('exit', 1100, { status: 'exited', exitCode: '0' }, 'consumer'),
    ev('checkpoint', 1110, {
      checkpoint: 'after-consumer',
      business_rows: '0',
      token: 't2',
      status: 'waiting',
      // a checkpoint's event carries its view as an object, though TimelineEvent types fields as strings
      view: { description: 'shown by the step itself', queues: [] } as unknown as string,
    }),
  ];
  const depths = {
    intervalMs: 250,
    method: { ready: '', messages: '' },
    queues: ['work', 'retry', 'dlq'],
    missed: 0,
    samples: [
      {
        timestamp: new Date(T0 + 10).toISOString(),
        ready: [1, 0, 0],
        messages: [1, 0, 0],
        unacked: [0, 0, 0],
        held: [0, 0, 0],
      },
      { timestamp: new Date(T0 + 500).toISOString(), ready: [0, 1, 0] },
    ],
  };
  const steps = buildSteps({
    events,
    depths,
    topology,
    descriptions: { 'before-retry': 'the consumer rejects; the letter goes to the retry queue' },
  });

  it('one step per event in time order; gate lines and released halves folded away', () => {
    expect(steps.map((s) => s.rel)).toEqual([0, 5, 20, 21, 22, 1030, 1040, 1100, 1110]);
    expect(
      buildSteps({
        events: [events[2]!, ev('consumer', 22, { messageId: 'm1', destination: 'work', status: 'retry' }, 'consumer')],
        topology,
        descriptions: {},
      }).map((s) => s.tokens.m1?.at),
    ).toEqual(['p:consumer', 'p:consumer']); // a `retry` logged before the reject leaves it with the consumer
    expect(steps[3]?.title).toBe('pause: before-retry in consumer · order-1');
    expect(steps[3]?.description).toBe('the consumer rejects; the letter goes to the retry queue');
    expect(steps[3]?.waiting).toBeUndefined(); // released
    expect(steps[8]?.waiting).toBe('t2'); // the run waits on it
  });

  it('a token follows the message: publisher, its queue, the consumer, the dead-letter route, the queue its status names', () => {
    const at = steps.map((s) => s.tokens.m1?.at);
    expect(at).toEqual([
      'p:producer',
      'q:work',
      'p:consumer',
      'p:consumer',
      'q:retry',
      'p:consumer',
      'q:dlq',
      'q:dlq',
      'q:dlq',
    ]);
    expect(steps[0]?.tokens.m1?.label).toBe('order-1');
  });

  it("a sender's bookkeeping after the confirm leaves the message in its queue (outbox's relay)", () => {
    const outbox: Topology = { queues: [{ name: 'ns.outbox.orders' }] };
    const relay = (ms: number, fields: Record<string, string>) =>
      ev('relay', ms, { eventId: 'evt-order-1', orderId: 'order-1', ...fields }, 'relay-run1');
    const at = buildSteps({
      events: [
        relay(0, { destination: 'ns.outbox.orders', status: 'confirmed' }),
        relay(5, { status: 'marked_sent' }),
        relay(6, { status: 'crash_injected' }),
      ],
      topology: outbox,
      descriptions: {},
    }).map((s) => s.tokens['evt-order-1']);
    expect(at.map((t) => t?.at)).toEqual(['q:ns.outbox.orders', 'q:ns.outbox.orders', 'q:ns.outbox.orders']);
    expect(at.map((t) => t?.done)).toEqual([false, false, false]);
  });

  it('a move has the route along the graph: the dead-letter route rejected, the expiry route back; none without an edge', () => {
    expect(steps.map((s) => s.route ?? null)).toEqual([
      null,
      null,
      null,
      null,
      ['q:work', 'q:retry'], // rejected: work's dead-letter route
      ['q:retry', 'q:work'], // expired in retry, received from work again
      null, // to the DLQ by the consumer's own publish: no broker route
      null,
      null,
    ]);
  });

  it("a policy's dead-letter route counts once a sample showed it; each step has the policy of its sample", () => {
    const t: Topology = {
      exchanges: [{ name: 'dlx', type: 'direct' }],
      queues: [{ name: 'source' }, { name: 'target' }],
      bindings: [{ exchange: 'dlx', queue: 'target', key: 'failed' }],
    };
    const policy = { name: 'p1', definition: { 'dead-letter-exchange': 'dlx', 'message-ttl': 5000 } };
    const none = { name: null, definition: {} };
    const held = buildSteps({
      events: [
        ev('producer', 0, { messageId: 'm1', destination: 'source', status: 'confirmed' }),
        ev('consumer', 10, { messageId: 'm1', destination: 'source', status: 'rejected_to_dlx' }),
        ev('target', 3000, { messageId: 'm1', destination: 'target', status: 'received' }),
      ],
      depths: {
        intervalMs: 250,
        method: { ready: '', messages: '' },
        queues: ['source', 'target'],
        missed: 0,
        samples: [
          { timestamp: new Date(T0 - 5).toISOString(), ready: [0, 0], messages: [0, 0], policy: [none, none] },
          { timestamp: new Date(T0 + 2000).toISOString(), ready: [0, 0], messages: [1, 0], policy: [policy, null] },
        ],
      },
      topology: t,
      descriptions: {},
    });
    expect(held.map((s) => s.tokens.m1?.at)).toEqual(['q:source', 'x:dlx', 'p:target']);
    expect(held.map((s) => s.route ?? null)).toEqual([null, ['q:source', 'x:dlx'], ['x:dlx', 'q:target']]);
    expect(held.map((s) => s.counts.policy)).toEqual([
      [[], []],
      [[], []],
      [['policy p1', 'dead-letter-exchange dlx', 'message-ttl 5 s'], null],
    ]);
  });

  it('counts from the samples up to the step; a pause shows those taken while it lasted; the message as its events said so far', () => {
    expect(steps[2]?.counts).toMatchObject({ ready: [1, 0, 0], readyAt: 10, unacked: [0, 0, 0], mgmtAt: 10 });
    expect(steps[3]?.counts.ready).toEqual([0, 1, 0]); // sampled at +500 ms, during the pause
    expect(steps[5]?.message).toMatchObject({ attempt: '2', redelivered: 'true', xDeath: 'retry:expired:1' });
    expect(steps[7]?.processes.consumer).toBe('exited (0)');
    expect(steps[8]?.business).toEqual({ from: 'checkpoint after-consumer', fields: { business_rows: '0' } });
  });

  it('a message published twice is two tokens, each where the broker has it; the second copy skipped as a duplicate', () => {
    const q = { destination: 'orders' };
    const o = (n: string, copy?: string) => ({
      eventId: `evt-order-${n}`,
      orderId: `order-${n}`,
      ...(copy ? { publishId: copy } : {}),
    });
    const out = buildSteps({
      events: [
        ev('business', 0, { ...o('1'), status: 'committed_with_outbox_row' }),
        ev('business', 1, { ...o('2'), status: 'committed_with_outbox_row' }),
        ev('relay', 10, { ...o('1', 'relay-run1/1'), ...q, status: 'confirmed' }, 'relay-run1'),
        ev('relay', 11, { ...o('1'), status: 'marked_sent' }, 'relay-run1'),
        ev('relay', 12, { ...o('2', 'relay-run1/2'), ...q, status: 'confirmed' }, 'relay-run1'),
        ev('relay', 13, { ...o('2'), status: 'crash_injected' }, 'relay-run1'),
        ev('exit', 14, { status: 'exited', exitCode: '137', signal: 'SIGKILL' }, 'relay-run1'),
        ev('relay', 20, { ...o('2', 'relay-run2/1'), ...q, status: 'confirmed' }, 'relay-run2'),
        ev('relay', 21, { ...o('2'), status: 'marked_sent' }, 'relay-run2'),
        ev('consumer', 30, { ...o('1', 'relay-run1/1'), status: 'received' }),
        ev('consumer', 31, { ...o('1', 'relay-run1/1'), status: 'business_committed' }),
        ev('consumer', 32, { ...o('2', 'relay-run1/2'), status: 'received' }),
        ev('consumer', 33, { ...o('2', 'relay-run1/2'), status: 'business_committed' }),
        ev('consumer', 34, { ...o('2', 'relay-run2/1'), status: 'received' }),
        ev('consumer', 35, { ...o('2', 'relay-run2/1'), status: 'duplicate_skipped' }),
      ],
      topology: { queues: [{ name: 'orders' }] },
      descriptions: {},
    });
    const inQueue = (i: number) =>
      Object.values(out[i]?.tokens ?? {})
        .filter((t) => t.at === 'q:orders')
        .map((t) => t.label);
    // what the broker holds after each publish: 1, 2, then 3 (the relay's marks and its crash move nothing)
    expect([2, 4, 5, 6, 7, 8].map(inQueue)).toEqual([
      ['1'],
      ['1', '2#1'],
      ['1', '2#1'],
      ['1', '2#1'],
      ['1', '2#1', '2#2'],
      ['1', '2#1', '2#2'],
    ]);
    expect(out[7]?.title).toBe('relay-run2: confirmed · 2#2');
    expect(out[7]?.token).toBe('evt-order-2@relay-run2/1');
    expect(out[7]?.messageId).toBe('evt-order-2');
    // the first copy is the business event's token, carried on (no third token for order 2)
    expect(Object.keys(out[8]?.tokens ?? {})).toEqual([
      'evt-order-1@relay-run1/1',
      'evt-order-2@relay-run1/2',
      'evt-order-2@relay-run2/1',
    ]);
    const last = out.at(-1)!;
    expect(inQueue(out.length - 1)).toEqual([]);
    expect(last.tokens['evt-order-2@relay-run1/2']).toMatchObject({ at: 'p:consumer', done: true });
    expect(last.tokens['evt-order-2@relay-run1/2']?.skipped).toBeUndefined();
    expect(last.tokens['evt-order-2@relay-run2/1']).toEqual({
      at: 'p:consumer',
      label: '2#2',
      done: true,
      skipped: true,
    });
    expect(last.message).toMatchObject({ publishId: 'relay-run2/1', orderId: 'order-2' });
  });

  it('at a pause the broker wins: a letter its reading does not count in a queue is taken off it, and the step says where it went', () => {
    const t: Topology = {
      exchanges: [{ name: 'ns.drop.dlx', type: 'direct' }],
      queues: [{ name: 'ns.drop' }, { name: 'ns.drop.target' }],
      bindings: [{ exchange: 'ns.drop.dlx', queue: 'ns.drop.target', key: 'failed' }],
    };
    const policy = { name: 'p', definition: { 'dead-letter-exchange': 'ns.drop.dlx' } };
    const view = (held: number, bound: boolean) =>
      settledView(
        'dropped',
        [
          { queue: 'ns.drop', ready: 0, unacked: 0, held },
          { queue: 'ns.drop.target', ready: 0, unacked: 0, held: 0 },
        ],
        bound ? [{ exchange: 'ns.drop.dlx', queue: 'ns.drop.target', key: 'failed' }] : [],
        [policy, { name: null, definition: {} }],
      );
    // the reject logged a moment before the publish's confirm: by the events the letter is back in ns.drop
    const run = (v: string) =>
      buildSteps({
        events: [
          ev('consumer', 10, { messageId: 'evt', destination: 'ns.drop', status: 'rejected_to_dlx' }),
          ev('producer', 10, { messageId: 'evt', destination: 'ns.drop', status: 'confirmed' }),
          ev('checkpoint', 50, { checkpoint: 'dropped', token: 't1', status: 'waiting', view: v }),
          ev('binding', 60, { exchange: 'ns.drop.dlx', queue: 'ns.drop.target', status: 'restored' }),
        ],
        topology: t,
        descriptions: {},
      });
    const dropped = run(view(0, false));
    expect(dropped[1]?.tokens.evt?.at).toBe('q:ns.drop'); // what the events say
    expect(dropped[2]?.tokens.evt).toBeUndefined(); // the reading counts nothing there
    expect(dropped[3]?.tokens.evt).toBeUndefined(); // and the events after it do not put it back
    expect(dropped[2]?.gone).toEqual([
      'evt: not in ns.drop by this reading (0 there; its events put it there) — dead-lettered to drop.dlx, which the broker binds to no queue now: dropped',
    ]);
    // bound at the reading: gone, but not said dropped
    expect(run(view(0, true))[2]?.gone).toEqual([
      'evt: not in ns.drop by this reading (0 there; its events put it there) — gone by this reading (its dead letters go to drop.dlx → drop.target)',
    ]);
    // many letters of one queue gone one way: one line, the first few named
    expect(
      goneLines(
        ['001', '002', '003', '004', '005'].map((label) => ({
          token: label,
          label,
          queue: 'ns.orders',
          counted: 0,
          went: 'gone by this reading',
        })),
      ),
    ).toEqual([
      '001, 002, 003 and 2 more: not in ns.orders by this reading (0 there; their events put them there) — gone by this reading',
    ]);
    // held there (the reading counts it): drawn there, nothing said
    const held = run(view(1, false));
    expect(held[2]?.tokens.evt?.at).toBe('q:ns.drop');
    expect(held[2]?.gone).toBeUndefined();
  });

  it('at a pause a letter the events left at an exchange is drawn in the queue the broker shows it in, or said dropped', () => {
    const t: Topology = {
      exchanges: [{ name: 'ns.dlx', type: 'fanout' }],
      queues: [{ name: 'ns.work', args: { 'x-dead-letter-exchange': 'ns.dlx' } }, { name: 'ns.dlq' }],
      bindings: [{ exchange: 'ns.dlx', queue: 'ns.dlq', key: '' }],
    };
    const view = (dlq: number, bound: boolean) =>
      settledView(
        'settled',
        [
          { queue: 'ns.work', ready: 0, unacked: 0, held: 0 },
          { queue: 'ns.dlq', ready: dlq, unacked: 0, held: 0 },
        ],
        bound ? [{ exchange: 'ns.dlx', queue: 'ns.dlq', key: '' }] : [],
        [null, null],
      );
    const run = (v: string) =>
      buildSteps({
        events: [
          ev('producer', 5, { messageId: 'm', destination: 'ns.work', status: 'confirmed' }),
          ev('consumer', 10, { messageId: 'm', destination: 'ns.work', status: 'rejected' }),
          ev('checkpoint', 50, { checkpoint: 'settled', token: 't1', status: 'waiting', view: v }),
        ],
        topology: t,
        descriptions: {},
      });
    const routed = run(view(1, true));
    expect(routed[1]?.tokens.m?.at).toBe('x:ns.dlx'); // what the events say: the dead-letter route's end
    expect(routed[2]?.tokens.m?.at).toBe('q:ns.dlq');
    expect(routed[2]?.gone).toEqual([
      'm: at ns.dlx by its events, but an exchange holds no message — routed on to ns.dlq (1 there by this reading)',
    ]);
    const dropped = run(view(0, false));
    expect(dropped[2]?.tokens.m).toBeUndefined();
    expect(dropped[2]?.gone).toEqual([
      'm: at ns.dlx by its events, but an exchange holds no message — sent to ns.dlx, which the broker binds to no queue now: dropped',
    ]);
  });

  it('at a pause a message the view saw leave its queue on a TTL hop is not drawn there, and its panel says so', () => {
    const v = {
      lab: 'l',
      checkpoint: 'in-retry',
      seq: 1,
      description: null,
      process: 'consumer',
      message: { id: 'm1', leftQueue: 'retry' },
      queues: [
        { queue: 'work', ready: 0, unacked: null, held: null },
        { queue: 'retry', ready: 0, unacked: null, held: null },
        { queue: 'dlq', ready: 0, unacked: null, held: null },
      ],
      broker: { at: new Date(T0 + 50).toISOString(), reading: 'ready-only', bindings: [], policies: [] },
      facts: {},
      at: new Date(T0 + 50).toISOString(),
    } as unknown as string;
    const run = (view: string) =>
      buildSteps({
        events: [
          ev('consumer', 10, { messageId: 'm1', destination: 'work', status: 'received' }, 'consumer'),
          ev('consumer', 20, { messageId: 'm1', destination: 'work', status: 'rejected' }, 'consumer'),
          ev('checkpoint', 50, { checkpoint: 'in-retry', messageId: 'm1', token: 't1', status: 'waiting', view }),
        ],
        topology,
        descriptions: {},
      });
    const out = run(v);
    expect(out[1]?.tokens.m1?.at).toBe('q:retry');
    expect(out[2]?.tokens.m1).toBeUndefined();
    // the next queue's counts known, and room there: drawn where the TTL sent it (retry's copy, back in work)
    const counted = structuredClone(
      v as unknown as { queues: { queue: string; unacked: number | null; held: number | null }[] },
    );
    for (const q of counted.queues) Object.assign(q, { unacked: q.queue === 'work' ? 1 : 0, held: 0 });
    const back = run(counted as unknown as string);
    expect(back[2]?.tokens.m1?.at).toBe('q:work');
    expect(back[2]?.gone).toEqual([
      'm1: not in retry by this reading (0 there; its events put it there) — its TTL sent it on to work (1 there by this reading)',
    ]);
    expect(out[2]?.message?.at).toBe(
      'm1: not in retry by this reading (0 there; its events put it there) — its TTL sent it on',
    );
  });

  it('short labels and status words', () => {
    expect(commonPrefix(['order-1001', 'order-1002', 'order-poison'])).toBe('order-');
    expect(commonPrefix(['healthy', 'poison'])).toBe('');
    expect(statusQueue('poison_to_dlq', ['ns.orders.work', 'ns.orders.dlq'])).toBe('ns.orders.dlq');
    expect(statusQueue('retry_confirmed', ['ns.retry'])).toBeUndefined();
    expect(statusQueue('retry', ['ns.retry'])).toBeUndefined();
  });
});
