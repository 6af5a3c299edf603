/**
 * retry-dlq's replay gate (seed 004, `[replay-gate]` lines): the consumer process pauses at
 * after-delivery, before-ack, before-retry, before-dlq — each a checkpoint of the parent, so --step
 * really holds the consumer — and the lines have the seed's form in consumer.out.txt and with -v.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mqlab, startMqlab, useNamespace, useServices } from '../../test/helpers.js';
import { must } from '../../src/must.js';

const NS = useNamespace(import.meta.url).namespace;
const ID = (n: number | 'P') => `01JMQ00000000000000000000${n}`;
// the seed's consumer.out.txt, gate by gate: checkpoint, message, sequence in the process
const SEED_GATES: [string, string][] = [
  ['after-delivery', ID(1)], ['before-ack', ID(1)],
  ['after-delivery', ID(2)], ['before-ack', ID(2)],
  ['after-delivery', ID('P')], ['before-retry', ID('P')],
  ['after-delivery', ID('P')], ['before-retry', ID('P')],
  ['after-delivery', ID('P')], ['before-dlq', ID('P')],
];
const gateRe = (checkpoint: string, id: string, seq: number, status: string) =>
  new RegExp(`^\\[replay-gate\\] timestamp=\\S+ checkpoint=${checkpoint} messageId=${id} token=[0-9a-f]{12}-1-${checkpoint}-${id}-${seq} status=${status}$`);

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

  it("prints the seed's ten gates, waiting then released, in consumer.out.txt and with -v; inspect-db.out.txt as the seed's", async () => {
    const r = await mqlab(['retry-dlq', '--namespace', NS, '-v', '--out', out, '--gate', '50ms']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const expected = SEED_GATES.flatMap(([cp, id], i) => [gateRe(cp, id, i + 1, 'waiting'), gateRe(cp, id, i + 1, 'released')]);
    const fileGates = fs.readFileSync(path.join(out, 'consumer.out.txt'), 'utf8').split('\n').filter((l) => l.startsWith('[replay-gate]'));
    const verboseGates = r.stderr.split('\n').filter((l) => l.startsWith('[replay-gate]'));
    for (const gates of [fileGates, verboseGates]) {
      expect(gates).toHaveLength(expected.length);
      gates.forEach((line, i) => expect(line).toMatch(must(expected[i], `the pattern of gate line ${i + 1}`)));
    }
    // each gate held --gate: released at least 50 ms after waiting
    const at = (l: string | undefined) => Date.parse(must(/timestamp=(\S+)/.exec(must(l, 'a gate line'))?.[1], `the timestamp of ${l}`));
    for (let i = 0; i < fileGates.length; i += 2) expect(at(fileGates[i + 1]) - at(fileGates[i])).toBeGreaterThanOrEqual(50);
    // the seed's order: the poison message's retry line comes before its before-retry gate
    const consumer = fs.readFileSync(path.join(out, 'consumer.out.txt'), 'utf8').split('\n');
    const retry = consumer.findIndex((l) => l.includes('status=retry'));
    expect(consumer[retry + 1]).toMatch(/checkpoint=before-retry .* status=waiting$/);
    expect(fs.readFileSync(path.join(out, 'inspect-db.out.txt'), 'utf8').trimEnd()).toMatch(
      /^\[inspect\] timestamp=\S+ level=INFO service=order-service product=rabbitmq lab=retry-dlq business_rows=2 processed_rows=2 status=snapshot$/,
    );
  });

  it('--step holds the consumer process at after-delivery: nothing is committed until Enter', async () => {
    const { child, stderrShows } = startMqlab(['retry-dlq', '--namespace', NS, '--step']);
    await stderrShows('[checkpoint] after-delivery', 20_000);
    await new Promise((r) => setTimeout(r, 1500));
    const [row] = await s.db`SELECT count(*)::int AS n FROM ${s.db(`${NS}_retry_dlq_orders`)}`;
    expect(row?.n).toBe(0); // the consumer has the first order and waits at its gate
    child.stdin!.end('\n'.repeat(40));
    const r = await child;
    expect(r.exitCode, String(r.stdout) + r.stderr).toBe(0);
    for (const cp of ['after-delivery', 'before-ack', 'before-retry', 'before-dlq']) expect(r.stderr).toContain(`[checkpoint] ${cp} process=consumer messageId=`);
  });
});
