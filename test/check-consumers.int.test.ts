/**
 * Every reference consumer of mqlab check (examples/consumers/catalogue.ts) through every group, on the
 * broker line of this run's services: the correct ones pass, each broken one fails exactly the checks
 * its catalogue entry lists — every check a group prints is thus shown failing. A disruptive file
 * (vitest.config.ts): broker-restart and db-outage stop this set's services.
 */
import { describe, expect, it } from 'vitest';
import { mqlab, useNamespace } from './helpers.js';
import { capabilities } from '../src/broker/capabilities.js';
import { commandOf, exampleSql, REFERENCE_CONSUMERS } from '../examples/consumers/catalogue.js';
import { pythonMissing } from './python-pika.js';

const names = useNamespace(import.meta.url);
const sql = exampleSql(names.namespace);
const SEED = '7';

interface Doc {
  result: string;
  broker: { version: string };
  groups: {
    group: string;
    status: string;
    checks: { name: string; pass: boolean }[];
    facts: Record<string, unknown>;
  }[];
}

describe.each(REFERENCE_CONSUMERS)('mqlab check on $file', (c) => {
  it(
    c.fails.length ? `fails ${c.fails.join(', ')} and nothing else` : 'passes every group',
    async () => {
      if (c.language === 'python') expect(await pythonMissing()).toBeNull();
      const args = [
        'check',
        '--consumer',
        commandOf(c),
        '--effects',
        sql.effects,
        '--cleanup',
        sql.cleanup,
        '--seed',
        SEED,
        '--json',
      ];
      const r = await mqlab(args);
      // its last lines first: CI's summary keeps only a failure's first lines
      const tail = r.stderr.trim().split('\n').slice(-4).reverse().join('\n');
      expect([0, 1], `exit ${r.code}; stderr from its end:\n${tail}`).toContain(r.code);
      const doc = JSON.parse(r.stdout) as Doc;
      const failed = doc.groups.flatMap((g) => g.checks.filter((k) => !k.pass).map((k) => k.name));
      expect(doc.groups.filter((g) => g.status === 'skipped').map((g) => g.group)).toEqual([]);
      const allowed = [...c.fails, ...(c.mayFail ?? [])];
      const verdict = `FAIL printed for ${failed.join(', ') || 'nothing'} (facts: ${JSON.stringify(
        doc.groups.map((g) => [g.group, g.facts]),
      )})\n${r.stderr}`;
      expect(
        failed.filter((f) => !allowed.includes(f)),
        verdict,
      ).toEqual([]);
      expect(
        c.fails.filter((f) => !failed.includes(f)),
        verdict,
      ).toEqual([]);
      expect(r.code).toBe(c.fails.length ? 1 : 0);
      // the consumer timeout as the broker line answers it (capabilities.ts consumerTimeoutCancels)
      const timeout = doc.groups.find((g) => g.group === 'consumer-timeout')!;
      expect(timeout.facts.brokerAction).toBe(
        capabilities(doc.broker.version).consumerTimeoutCancels ? 'basic.cancel' : 'channel.close 406',
      );
    },
    300_000,
  ); // every group: 25–100 s a consumer at a load of 17
});
