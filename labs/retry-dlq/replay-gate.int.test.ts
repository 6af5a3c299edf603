/**
 * retry-dlq's replay gate (src/kit/gates/replay-gate.ts, `[replay-gate]` lines): the consumer process pauses at
 * after-delivery, before-ack, before-retry, before-dlq — each a checkpoint of the parent, so --step
 * really holds the consumer — and the lines have the source demo's form in consumer.out.txt and with -v.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mqlab, startMqlab, useNamespace, useServices } from '../../test/helpers.js';
import { must } from '../../src/core/must.js';

const NS = useNamespace(import.meta.url).namespace;
const ID = (n: number | 'P') => `01JMQ00000000000000000000${n}`;
// the source demo's consumer.out.txt (docs/labs/retry-dlq.md), gate by gate: checkpoint, message, sequence in the process
const DEMO_GATES: [string, string][] = [
  ['after-delivery', ID(1)],
  ['before-ack', ID(1)],
  ['after-delivery', ID(2)],
  ['before-ack', ID(2)],
  ['after-delivery', ID('P')],
  ['before-retry', ID('P')],
  ['after-delivery', ID('P')],
  ['before-retry', ID('P')],
  ['after-delivery', ID('P')],
  ['before-dlq', ID('P')],
];
const gateRe = (checkpoint: string, id: string, seq: number, status: string) =>
  new RegExp(
    `^\\[replay-gate\\] timestamp=\\S+ checkpoint=${checkpoint} messageId=${id} token=[0-9a-f]{12}-1-${checkpoint}-${id}-${seq} status=${status}$`,
  );

describe('retry-dlq replay gate', () => {
  const s = useServices({
    teardown: async ({ broker, db }) => {
      const ch = await broker.newChannel();
      for (const q of ['orders.work', 'orders.retry', 'orders.dlq']) await ch.deleteQueue(`${NS}.${q}`).catch(() => {});
      await ch.close().catch(() => {});
      await db.unsafe(`DROP TABLE IF EXISTS ${NS}_retry_dlq_orders, ${NS}_retry_dlq_processed_messages`);
    },
  });
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-retry-dlq-gate-'));
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  it("prints the demo's ten gates, waiting then released, in consumer.out.txt and with -v; inspect-db.out.txt as the demo's", async () => {
    const r = await mqlab(['retry-dlq', '--namespace', NS, '-v', '--out', out, '--gate', '50ms']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const expected = DEMO_GATES.flatMap(([cp, id], i) => [
      gateRe(cp, id, i + 1, 'waiting'),
      gateRe(cp, id, i + 1, 'released'),
    ]);
    const fileGates = fs
      .readFileSync(path.join(out, 'consumer.out.txt'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('[replay-gate]'));
    const verboseGates = r.stderr.split('\n').filter((l) => l.startsWith('[replay-gate]'));
    for (const gates of [fileGates, verboseGates]) {
      expect(gates).toHaveLength(expected.length);
      gates.forEach((line, i) => expect(line).toMatch(must(expected[i], `the pattern of gate line ${i + 1}`)));
    }
    // each gate held --gate: released at least 50 ms after waiting
    const at = (l: string | undefined) =>
      Date.parse(must(/timestamp=(\S+)/.exec(must(l, 'a gate line'))?.[1], `the timestamp of ${l}`));
    for (let i = 0; i < fileGates.length; i += 2)
      expect(at(fileGates[i + 1]) - at(fileGates[i])).toBeGreaterThanOrEqual(50);
    // the demo's order: the poison message's retry line comes before its before-retry gate
    const consumer = fs.readFileSync(path.join(out, 'consumer.out.txt'), 'utf8').split('\n');
    const retry = consumer.findIndex((l) => l.includes('status=retry'));
    expect(consumer[retry + 1]).toMatch(/checkpoint=before-retry .* status=waiting$/);
    expect(fs.readFileSync(path.join(out, 'inspect-db.out.txt'), 'utf8').trimEnd()).toMatch(
      /^\[inspect\] timestamp=\S+ level=INFO service=order-service product=rabbitmq lab=retry-dlq business_rows=2 processed_rows=2 status=snapshot$/,
    );
  });

  it('--step holds the consumer process at after-delivery: nothing is committed until Enter', async () => {
    const { child, stderrShows } = startMqlab(['retry-dlq', '--namespace', NS, '--step']);
    await stderrShows('── checkpoint 1: after-delivery', 20_000);
    await new Promise((r) => setTimeout(r, 1500));
    const [row] = await s.db`SELECT count(*)::int AS n FROM ${s.db(`${NS}_retry_dlq_orders`)}`;
    expect(row?.n).toBe(0); // the consumer has the first order and waits at its gate
    child.stdin.end('\n'.repeat(40));
    const r = await child;
    expect(r.exitCode, String(r.stdout) + r.stderr).toBe(0);
    const pauses = String(r.stderr).split('\n── checkpoint ').slice(1);
    // the demo's ten gates, the two in-retry pauses, after-consumer
    expect(pauses.map((p) => /^\d+: (\S+)/.exec(p)?.[1])).toEqual([
      'after-delivery',
      'before-ack',
      'after-delivery',
      'before-ack',
      'after-delivery',
      'before-retry',
      'in-retry',
      'after-delivery',
      'before-retry',
      'in-retry',
      'after-delivery',
      'before-dlq',
      'after-consumer',
    ]);
    const raw = (i: number) => must(pauses[i], `pause ${i + 1}`);
    const pause = (i: number) => raw(i).replace(/\s+/g, ' '); // the text, however the terminal's width wrapped it
    const counts = (p: string, q: string) => {
      const m = new RegExp(`^  ${NS}\\.orders\\.${q} +(\\d+|\\?) +(\\d+|\\?) +(\\d+|\\?)`, 'm').exec(p);
      return m ? m.slice(1).map((c) => (c === '?' ? null : Number(c))) : null;
    };
    // each pause: the checkpoint's one-line description, from the lab's page
    expect(pause(0)).toContain('the consumer has received a delivery');
    expect(pause(0)).toContain('message order-1001 (01JMQ000000000000000000001) · attempt=1 · redelivered=false');
    expect(pause(0)).toContain('x-death: none');
    // the consumer holds the three orders (prefetch 10): unacked, not ready — what the broker showed
    expect(counts(raw(0), 'work')).toEqual([0, 3, 0]);
    expect(pause(0)).toContain('held = messages - ready - unacked');
    // the retry hop is on screen: the poison message ready in the retry queue — or, where the way from the
    // consumer's sighting to the pause's reading took longer than its 1000 ms TTL (CI at load 30 on 3.10),
    // the pause says it is gone, and the count agrees
    if (pause(6).includes(`now in ${NS}.orders.retry`)) expect(counts(raw(6), 'retry')).toEqual([1, null, null]);
    else {
      expect(pause(6)).toContain(`was in ${NS}.orders.retry, gone by this reading (its TTL sent it on)`);
      expect(counts(raw(6), 'retry')).toEqual([0, null, null]);
    }
    // ready only: the counters would show the message after its 1000 ms TTL had already sent it back
    expect(counts(raw(6), 'work')).toEqual([0, null, null]);
    expect(pause(6)).toContain('ready only, counted now: the message is on a timed hop');
    // attempt 2 after one hop: the broker's history, newest first
    expect(pause(7)).toContain('attempt=2');
    expect(pause(7)).toContain(`x-death: ${NS}.orders.retry expired ×1, ${NS}.orders.work rejected ×1`);
    expect(pause(10)).toContain(`x-death: ${NS}.orders.retry expired ×2, ${NS}.orders.work rejected ×2`);
    expect(counts(raw(12), 'dlq')).toEqual([1, 0, 0]);
    expect(pause(12)).toContain('business_rows=2 processed_rows=2');
  }, 180_000);

  it("-v streams the consumer process's lines as they happen (src/kit/child/child.ts), not when it exits", async () => {
    const { child } = startMqlab(['retry-dlq', '--namespace', NS, '-v', '--gate', '200ms']);
    const arrived: { at: number; line: string }[] = [];
    let rest = '';
    child.stderr.on('data', (b: Buffer) => {
      const parts = (rest + b.toString()).split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) arrived.push({ at: performance.now(), line });
    });
    const r = await child;
    expect(r.exitCode, String(r.stdout) + r.stderr).toBe(0);
    const when = (re: RegExp) =>
      must(
        arrived.find((a) => re.test(a.line)),
        `a line ${re}`,
      ).at;
    // the consumer's first line reached the terminal while it still had two retry hops (2 × 1000 ms TTL) ahead
    const firstReceived = when(/^\[consumer\] .*messageId=01JMQ000000000000000000001 .*status=received/);
    const exited = when(/^\[exit\] .*status=exited exitCode=0/);
    expect(exited - firstReceived).toBeGreaterThan(1500);
    // and each line came when it was stamped: the consumer's lines and the lab's own, one time order
    const stamped = arrived
      .map((a) => Date.parse(/ timestamp=(\S+)/.exec(a.line)?.[1] ?? ''))
      .filter((t) => !Number.isNaN(t));
    const late = stamped.filter((t, i) => i > 0 && t < stamped[i - 1]! - 100);
    expect(late, 'lines stamped more than 100 ms before the line above them').toEqual([]);
  }, 120_000);
});
