import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { registry } from '../labs/registry.js';
import { loadConfig } from '../src/core/config.js';
import { labOptions } from '../src/lab/lab.js';
import { runNames } from '../src/cli/commands/names.js';

// here, not beside src/cli/commands/names.ts: it loads every lab, and the engine's files import no lab
const CLI = path.join(import.meta.dirname, '..', 'bin', 'mqlab.js');
const lab = (name: string) => registry.find((l) => l.name === name)!;

describe('mqlab <lab> --names', () => {
  it("gives the run's own queue, exchange, policy and table names, namespaced", async () => {
    const cc = await runNames(
      lab('consumer-crash'),
      loadConfig({ namespace: 's3' }, {}),
      labOptions(lab('consumer-crash')),
    );
    expect(cc).toEqual({
      namespace: 's3',
      queues: ['s3.orders.crash'],
      exchanges: [],
      policies: [],
      tables: ['s3_processed_messages', 's3_orders'],
    });
    const hold = await runNames(lab('hold'), loadConfig({}, {}), labOptions(lab('hold')));
    expect(hold.policies).toEqual(['me12-hold']);
    expect(hold.exchanges).toEqual(['me12.retry.hold.dlx']);
  });

  it('every lab but delayed-retry (its queues depend on the broker) names its queues or tables, namespaced', async () => {
    const none: string[] = [];
    for (const entry of registry) {
      const n = await runNames(entry, loadConfig({ namespace: 'x1' }, {}), labOptions(entry));
      if (n.queues.length + n.tables.length === 0) none.push(entry.name);
      for (const name of [...n.queues, ...n.exchanges])
        expect(name.startsWith('x1.'), `${entry.name}: ${name}`).toBe(true);
      for (const name of n.tables) expect(name.startsWith('x1_'), `${entry.name}: ${name}`).toBe(true);
    }
    expect(none).toEqual(['delayed-retry']);
  }, 30_000); // it loads every lab's modules: 5 s on a 2-core machine at load 15

  it('prints them and exits 0 without connecting to anything (no services at these URLs)', async () => {
    const r = await execa('node', [CLI, 'consumer-crash', '--namespace', 's3', '--names'], {
      reject: false,
      env: {
        NO_COLOR: '1',
        MQLAB_AMQP_URL: 'amqp://app:x@127.0.0.1:1/lab',
        MQLAB_PG_URL: 'postgres://app:x@127.0.0.1:1/lab',
        MQLAB_MGMT_URL: 'http://a:x@127.0.0.1:1',
      },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('consumer-crash in namespace s3:');
    expect(r.stdout).toMatch(/^ {2}tables {5}s3_processed_messages {2}s3_orders /m);
  });
});
