/**
 * The Try-this commands of the labs that stop or reconfigure a service (db-outage, broker-restart,
 * consumer-timeout), run as their pages print them (issue 46; test/try-this-pages.ts), with what the
 * database, the broker and the processes show after each: on the disruptive set (vitest.config.ts
 * DISRUPTIVE), whose PostgreSQL and RabbitMQ they stop. The other pages: test/try-this.int.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { CONFIG, ROOT, useNamespace, useServices } from './helpers.js';
import { pagesCommands } from './try-this.js';
import { printedShell, type Typed } from './printed-shell.js';
import { runPage, type Expected } from './try-this-pages.js';

useNamespace('s3'); // the pages' own namespace (shared with try-this.int.test.ts: never on one set at once)

const terminal = printedShell();
const pages = pagesCommands(ROOT);
/** `name=value` of a lab's summary line */
const fact = (r: Typed, name: string) => new RegExp(`\\b${name}=(\\S+)`).exec(r.out)?.[1];

describe('the disruptive labs’ "Try this" commands, as printed', () => {
  const s = useServices();
  /** the queue's counts as the management API reads them now; null when it does not answer */
  const queue = (name: string) => s.mgmt.queueNow(name).catch(() => null);

  it('db-outage', { timeout: 900_000 }, async () => {
    const effects = async () =>
      (
        await s.db<{ id: string; n: number }[]>`
          SELECT message_id AS id, count(*)::int AS n FROM lab.s3_dbo_effect GROUP BY 1 ORDER BY 1`
      ).map((r) => `${r.id}×${r.n}`);
    const everyIdOnce = ['dbo-001×1', 'dbo-002×1', 'dbo-003×1', 'dbo-004×1', 'dbo-005×1'];
    const expected: Record<string, Expected> = {
      'mqlab db-outage --namespace s3 --names': {
        check: (r) => {
          expect(r.out).toMatch(/^ {2}queues +s3\.dbo\.work$/m);
          expect(r.out).toMatch(/^ {2}tables +s3_dbo_processed +s3_dbo_effect\b/m);
        },
      },
      'mqlab db-outage --namespace s3 --down 1s --hold-budget 60s': {
        check: async (r) => {
          expect(fact(r, 'heldDelivery')).toBe('kept');
          expect(fact(r, 'redeliveries')).toBe('0');
          expect(await effects()).toEqual(everyIdOnce);
        },
      },
      'mqlab db-outage --namespace s3 --down 10s -v': {
        // one nack_requeue line per spent hold budget; the summary's redeliveries says the same
        check: async (r) => {
          const nacks = r.out.split('\n').filter((l) => l.includes('nack_requeue')).length;
          expect(nacks).toBeGreaterThan(0);
          expect(fact(r, 'redeliveries')).toBe(String(nacks));
          expect(await effects()).toEqual(everyIdOnce);
        },
      },
      'mqlab db-outage --namespace s3 --step': {
        pauses: [{ checkpoint: 'postgres-down', actions: ["mqlab psql -c 'SELECT 1'", 'mqlab status --namespace s3'] }],
        check: async () => expect(await effects()).toEqual(everyIdOnce),
      },
      // at postgres-down: psql is refused (its exit 2)
      "mqlab psql -c 'SELECT 1'": { codes: [2], check: (r) => expect(r.out).toMatch(/refused/i) },
      // the queue with the held delivery unacked; PostgreSQL is down, so status exits 2
      'mqlab status --namespace s3': {
        codes: [2],
        check: async (r) => {
          expect(r.out).toMatch(/^ {2}db-outage\s+s3\.dbo\.work\s+\d+\s+\d+\s+1\b/m);
          expect(await queue('s3.dbo.work')).toMatchObject({ unacked: 1 });
        },
      },
      'MQLAB_FAULT=db-outage:ack-before-commit mqlab db-outage --namespace s3': {
        // the held one at least; how many more the consumer took during the outage, the machine decides
        check: (r) => expect(Number(fact(r, 'lostIds'))).toBeGreaterThanOrEqual(1),
      },
    };
    await runPage('db-outage', pages.get('db-outage') ?? [], expected, terminal);
  });

  it('broker-restart', { timeout: 900_000 }, async () => {
    const expected: Record<string, Expected> = {
      "mqlab broker-restart -v 2>&1 | grep -E 'reconnect|resend|redelivered=true'": {
        check: (r) => {
          expect(r.out).toMatch(/reconnect/);
          expect(r.out).toMatch(/resend/);
          expect(r.out.split('\n').filter((l) => l.includes('redelivered=true')).length).toBe(5);
        },
      },
      'MQLAB_FAULT=broker-restart:transient-classic mqlab broker-restart': {
        check: (r) => expect(fact(r, 'survived')).toBe('0'),
      },
      // the page opens the management UI at broker-down (it is down too) and at broker-back (the queue, its messages)
      'mqlab broker-restart --step': {
        pauses: [
          { checkpoint: 'broker-down', actions: [], look: async () => expect(await queue('brk.work')).toBeNull() },
          {
            checkpoint: 'broker-back',
            actions: [],
            look: async () => {
              const q = await mgmtGet<{ type: string; durable: boolean }>(
                `/api/queues/${encodeURIComponent(CONFIG.vhost)}/brk.work`,
              );
              expect(q, 'brk.work at broker-back').toMatchObject({ type: 'quorum', durable: true });
            },
          },
        ],
      },
    };
    await runPage('broker-restart', pages.get('broker-restart') ?? [], expected, terminal);
  });

  it('consumer-timeout', { timeout: 600_000 }, async () => {
    const ready = async () => (await queue('consumer-timeout.ignored'))?.ready;
    let before: number | undefined;
    const expected: Record<string, Expected> = {
      // at the pause, a message published to consumer-timeout.ignored from the management UI (its publish
      // form: the default exchange, the queue's name as the key) stays ready beside the lab's own, the
      // listed consumer gets none; the run then counts it among the waiting ones (a FAIL the user made)
      'mqlab consumer-timeout --step': {
        codes: [1],
        pauses: [
          {
            checkpoint: 'held-past-timeout',
            actions: [],
            look: async () => {
              before = await ready();
              await publishFromUi('consumer-timeout.ignored', 'from the UI');
              // routed when the publish returns; the lab watches the ignoring client 2 × its 1 s timeout: as long here
              const t = Date.now();
              while (Date.now() - t < 2000) await new Promise((r) => setTimeout(r, 200));
              expect(await ready()).toBe((before ?? 0) + 1);
              // the queue's page lists the consumer (4.3 counts it out of `consumers`: timed out)
              const q = await mgmtGet<{ consumer_details: unknown[] }>(
                `/api/queues/${encodeURIComponent(CONFIG.vhost)}/consumer-timeout.ignored`,
              );
              expect(q.consumer_details).toHaveLength(1);
            },
          },
        ],
        check: (r) =>
          expect(r.out).toMatch(
            /^FAIL ignoredCancel: expected=deliveries=0 error=none waiting=2 actual=deliveries=0 error=none waiting=3$/m,
          ),
      },
      'MQLAB_FAULT=consumer-timeout:reconsume-on-cancel mqlab consumer-timeout': {
        check: (r) => expect(r.out).toMatch(/^FAIL ignoredCancel: /m),
      },
    };
    for (const c of pages.get('consumer-timeout') ?? [])
      if (/^(MQLAB_\w+=\S+ )*mqlab up\b/.test(c.text)) expected[c.text] = { skip: 'a set of another line' };
    await runPage('consumer-timeout', pages.get('consumer-timeout') ?? [], expected, terminal);
  });
});

/** what the management UI reads: the management API at `path`, as the set's administrator */
async function mgmtGet<T>(path: string, init: RequestInit = {}): Promise<T> {
  const url = new URL(CONFIG.mgmtUrl);
  const auth = Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString(
    'base64',
  );
  const res = await fetch(`${url.origin}${path}`, {
    ...init,
    headers: { authorization: `Basic ${auth}`, 'content-type': 'application/json' },
  });
  expect(res.status, `${path}: HTTP ${res.status}`).toBeLessThan(300);
  return (await res.json()) as T;
}

/** a message published as the management UI's "Publish message" form does: through the management API */
async function publishFromUi(queue: string, payload: string) {
  const routed = await mgmtGet(`/api/exchanges/${encodeURIComponent(CONFIG.vhost)}/amq.default/publish`, {
    method: 'POST',
    body: JSON.stringify({ properties: {}, routing_key: queue, payload, payload_encoding: 'string' }),
  });
  expect(routed).toEqual({ routed: true });
}
