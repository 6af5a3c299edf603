import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Management } from './management.js';

/** a queue as the two answers of the management API show it (the fields queueNow reads) */
const counted = { name: 'q', type: 'quorum', messages: 1, messages_ready: 0, messages_unacknowledged: 0, policy: 'p' };
/** 3.10.8's single-queue answer with disable_stats: the queue record, neither counts nor policy */
const uncounted = { name: 'q', type: 'quorum', state: 'live' };

/** a management API that answers the single-queue URL as `single` says (4.x: counted, 3.10: not) */
function fakeBroker(single: 'counted' | 'uncounted') {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '');
    const path = (req.url ?? '').split('?')[0];
    const body =
      path === '/api/queues/lab/q'
        ? single === 'counted'
          ? counted
          : uncounted
        : path === '/api/queues/lab'
          ? [{ ...counted, name: 'other', messages: 7 }, counted]
          : null;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'Object Not Found' }));
  });
  return { server, paths };
}

describe('Management.queueNow', () => {
  const brokers = { v4: fakeBroker('counted'), v310: fakeBroker('uncounted') };
  const mgmt = (b: ReturnType<typeof fakeBroker>) =>
    new Management(`http://admin:pw@127.0.0.1:${(b.server.address() as AddressInfo).port}`, 'lab');
  beforeAll(async () => {
    for (const b of Object.values(brokers)) await new Promise<void>((r) => b.server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => {
    for (const b of Object.values(brokers)) b.server.close();
  });

  it('reads one queue by name where that URL has its counts (4.0+)', async () => {
    const m = mgmt(brokers.v4);
    const q = await m.queueNow('q');
    expect(q).toMatchObject({ messages: 1, ready: 0, unacked: 0, policy: 'p' });
    await m.queueNow('q');
    expect(brokers.v4.paths).toEqual([
      '/api/queues/lab/q?disable_stats=true&enable_queue_totals=true',
      '/api/queues/lab/q?disable_stats=true&enable_queue_totals=true',
    ]);
    expect(await m.queueNow('absent')).toBeNull();
  });

  it("falls back to the vhost's list where it has not (3.10), and asks the list from then on", async () => {
    const m = mgmt(brokers.v310);
    expect(await m.queueNow('q')).toMatchObject({ messages: 1, ready: 0, unacked: 0, policy: 'p' });
    expect(await m.queueNow('q')).toMatchObject({ messages: 1 });
    expect(brokers.v310.paths).toEqual([
      '/api/queues/lab/q?disable_stats=true&enable_queue_totals=true',
      '/api/queues/lab?disable_stats=true&enable_queue_totals=true',
      '/api/queues/lab?disable_stats=true&enable_queue_totals=true',
    ]);
  });
});
