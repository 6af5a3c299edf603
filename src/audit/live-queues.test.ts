import { describe, expect, it } from 'vitest';
import type { Reader } from './http.js';
import { readQueues } from './live-queues.js';
import { UNPAGED_MAX } from './listing.js';

type Row = Record<string, unknown>;

/** a reader that answers from `answer` (null: 404) and records every path */
function fake(answer: (path: string) => unknown): Reader & { paths: string[] } {
  const paths: string[] = [];
  const one = (path: string) => {
    paths.push(path);
    const a = answer(path);
    if (a === undefined) throw new Error(`unexpected GET ${path}`);
    return Promise.resolve(a);
  };
  return {
    paths,
    get requests() {
      return paths.length;
    },
    get: <T>(path: string) => one(path).then((a) => a as T),
    find: <T>(path: string) => one(path).then((a) => (a === 404 ? null : (a as T))),
  };
}

const plain = (name: string, extra: Row = {}): Row => ({
  name,
  vhost: 'v',
  type: 'classic',
  durable: true,
  auto_delete: false,
  exclusive: false,
  arguments: {},
  effective_policy_definition: {},
  ...extra,
});
const withStats = (name: string, extra: Row = {}): Row => ({
  ...plain(name, extra),
  messages: 3,
  messages_ready: 2,
  messages_unacknowledged: 1,
  consumers: 1,
  message_stats: { redeliver: 7, redeliver_details: { rate: 25 }, deliver_get_details: { rate: 30 } },
});

const read = (http: Reader, total: unknown, consumers: Row[] = []) =>
  readQueues(http, {
    path: '/api/queues/v',
    total,
    version: [4, 3, 6],
    consumers: Promise.resolve(consumers),
    progress: () => {},
  });

describe('readQueues', () => {
  it('on 4.x reads statistics only of queues that hold messages, have a consumer or sit under the default delivery limit', async () => {
    const idle = Array.from({ length: 20 }, (_, i) => plain(`idle${i}`));
    const base = [
      ...idle,
      plain('held'),
      plain('consumed'),
      plain('quorum', { type: 'quorum' }),
      plain('limited', { type: 'quorum', effective_policy_definition: { 'delivery-limit': 5 } }),
      plain('gone'),
    ];
    const http = fake((p) => {
      if (p.startsWith('/api/queues/v?disable_stats=true&enable_queue_totals=true'))
        return base.map((q) => ({
          vhost: 'v',
          name: q.name,
          messages: q.name === 'held' || q.name === 'gone' ? 1 : 0,
        }));
      if (p.startsWith('/api/queues/v?disable_stats=true&columns=')) return base;
      if (p.startsWith('/api/queues/v/gone?')) return 404;
      const one = /^\/api\/queues\/v\/(\w+)\?columns=/.exec(p);
      return one ? withStats(one[1]!) : undefined;
    });
    const qs = await read(http, base.length, [{ queue: { vhost: 'v', name: 'consumed' } }]);
    const one = http.paths.filter((p) => /^\/api\/queues\/v\/\w+\?/.test(p)).map((p) => p.split('?')[0]);
    expect(one.sort()).toEqual([
      '/api/queues/v/consumed',
      '/api/queues/v/gone',
      '/api/queues/v/held',
      '/api/queues/v/quorum',
    ]);
    expect(qs.map((q) => q.name)).not.toContain('gone'); // deleted since it was listed
    expect(qs).toHaveLength(base.length - 1);
    const held = qs.find((q) => q.name === 'held')!;
    expect(held.stats).toMatchObject({
      messages: 3,
      ready: 2,
      unacked: 1,
      consumers: 1,
      redeliverRate: 25,
      redelivered: 7,
    });
    const i0 = qs.find((q) => q.name === 'idle0')!;
    expect(i0.stats).toMatchObject({ messages: 0, consumers: 0, redeliverRate: 0, redelivered: 0 });
    expect(qs.find((q) => q.name === 'limited')!.policy).toEqual({ 'delivery-limit': 5 });
  });

  it('a queue missing from the totals counts as one that holds messages', async () => {
    const base = [plain('a'), plain('b'), plain('c'), plain('d')];
    const http = fake((p) => {
      if (p.includes('enable_queue_totals'))
        return [
          { vhost: 'v', name: 'a', messages: 0 },
          { vhost: 'v', name: 'b', messages: 0 },
          { vhost: 'v', name: 'c', messages: 0 },
        ];
      if (p.includes('disable_stats=true')) return base;
      return p.startsWith('/api/queues/v/d?') ? withStats('d') : undefined;
    });
    const qs = await read(http, 4);
    expect(qs.find((q) => q.name === 'd')!.stats!.messages).toBe(3);
  });

  it('takes the listing with statistics before 4.3, which lists no effective policy without them', async () => {
    const http = fake((p) => {
      if (p.startsWith('/api/queues/v?columns='))
        return [withStats('a', { effective_policy_definition: { 'message-ttl': 5 } })];
      return undefined;
    });
    const qs = await readQueues(http, {
      path: '/api/queues/v',
      total: 1,
      version: [4, 2, 4],
      consumers: Promise.resolve([]),
      progress: () => {},
    });
    // not asked before 4.2.5, where the listing without statistics first carries the policy's definition (#15182)
    expect(http.paths.some((p) => p.includes('disable_stats'))).toBe(false);
    expect(qs[0]).toMatchObject({ name: 'a', policy: { 'message-ttl': 5 }, stats: { messages: 3 } });
  });

  it('takes the listing with statistics when a 4.3 broker lists no effective policy after all', async () => {
    const http = fake((p) => {
      if (p.includes('enable_queue_totals')) return [{ vhost: 'v', name: 'a', messages: 0 }];
      if (p.includes('disable_stats=true&columns=')) return [{ name: 'a', vhost: 'v', policy: 'p' }];
      if (p.startsWith('/api/queues/v?columns=')) return [withStats('a')];
      return undefined;
    });
    expect((await read(http, 1))[0]!.stats!.messages).toBe(3);
  });

  it('takes the listing with statistics when more than a third of the queues need them', async () => {
    const base = [plain('a'), plain('b'), plain('c')];
    const http = fake((p) => {
      if (p.includes('enable_queue_totals'))
        return base.map((q) => ({ vhost: 'v', name: q.name, messages: q.name === 'c' ? 0 : 1 }));
      if (p.includes('disable_stats=true')) return base;
      if (p.startsWith('/api/queues/v?columns=')) return base.map((q) => withStats(String(q.name)));
      return undefined;
    });
    const qs = await read(http, 3);
    expect(http.paths.filter((p) => /^\/api\/queues\/v\/\w/.test(p))).toEqual([]);
    expect(qs.map((q) => q.stats!.messages)).toEqual([3, 3, 3]);
  });

  it('reads in pages, with statistics, when the broker holds more queues than one request should carry', async () => {
    const http = fake((p) => {
      const page = /page=(\d+)&page_size=500&columns=/.exec(p);
      if (!p.startsWith('/api/queues/v?page=') || !page) return undefined;
      return { page_count: 2, total_count: 2, items: [withStats(`q${page[1]}`)] };
    });
    const qs = await read(http, UNPAGED_MAX + 1);
    expect(http.paths.map((p) => p.split('&columns')[0])).toEqual([
      '/api/queues/v?page=1&page_size=500',
      '/api/queues/v?page=2&page_size=500',
    ]);
    expect(qs.map((q) => q.name)).toEqual(['q1', 'q2']);
  });
});
