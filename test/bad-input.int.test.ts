/**
 * Bad input through the real CLI — a bounded number of spawns (the bulk of the
 * generated inputs runs in process: labs/bad-input.test.ts). Each: one line (and what to do),
 * exit 2, no stack trace, no secret, nothing printed on stdout, and nothing changed on the
 * services: a sentinel queue keeps its message, a sentinel table its row, no queue or table of this
 * file's namespace appears or goes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mqlab, useNamespace, useServices, type Services } from './helpers.js';
import { must } from '../src/core/must.js';
import { numberLike, parsedOptions } from './bad-input-values.js';

const SECRET = 'Sup3r-s3cret';
const n = useNamespace(import.meta.url);
const SENTINEL_Q = n.q('sentinel');
const SENTINEL_T = n.t('sentinel');

/** one generated value each option refuses (seeded: the same values on every run) */
function refusedValue(parse: (raw: string) => unknown, seed: number): string {
  const refused = numberLike.filter((raw) => {
    try {
      parse(raw);
      return false;
    } catch {
      return !raw.startsWith('-'); // commander would read "-x" as a flag: that is another case below
    }
  });
  return must(fc.sample(refused, { seed, numRuns: 1 })[0], `a refused value (seed ${seed})`);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-bad-'));
fs.writeFileSync(path.join(tmp, 'a-file'), '');

const cases: { what: string; args: string[]; env?: Record<string, string> }[] = [
  ...parsedOptions.map(({ command, flag, option }, i) => {
    const value = refusedValue(option.parse, 16 + i);
    return { what: `${command.join(' ')} ${flag} ${JSON.stringify(value)}`, args: [...command, flag, value] };
  }),
  { what: 'unknown flag', args: ['retry', '--bogus'] },
  { what: 'unknown flag with a value', args: ['all', '--retries=3'] },
  { what: 'flag without its value', args: ['status', '--amqp-url'] },
  { what: 'unknown command', args: ['retyr'] },
  { what: 'malformed AMQP URL with a password', args: ['retry', '--amqp-url', `amqp://app:${SECRET}@`] },
  {
    what: 'password in the PostgreSQL query string, bad port',
    args: ['retry', '--pg-url', `postgres://app@127.0.0.1:99999/lab?password=${SECRET}`],
  },
  { what: 'wrong scheme for the management URL', args: ['status', '--mgmt-url', `ftp://admin:${SECRET}@127.0.0.1`] },
  { what: 'no scheme at all (env)', args: ['retry'], env: { MQLAB_AMQP_URL: `app:${SECRET}@127.0.0.1:5772/lab` } },
  {
    what: 'password with a slash, unencoded',
    args: ['retry', '--amqp-url', `amqp://app:${SECRET}/x@127.0.0.1:5772/lab`],
  },
  { what: 'namespace with capitals', args: ['retry', '--namespace', 'Safety-NS'] },
  { what: 'namespace too long', args: ['all', '--namespace', 's'.repeat(25)] },
  { what: '--out under a file', args: ['retry', '--out', path.join(tmp, 'a-file', 'out')] },
  { what: '--out under /proc', args: ['retry', '--out', '/proc/1/mqlab-out'] },
  { what: '--junit is a directory', args: ['retry', '--junit', tmp] },
  { what: 'a broken variant the lab does not declare', args: ['retry'], env: { MQLAB_FAULT: 'retry:skip-dealy' } },
  { what: 'a broken variant of a lab that does not exist', args: ['all'], env: { MQLAB_FAULT: 'retyr:skip-delay' } },
  { what: '--junit in a missing directory', args: ['retry', '--junit', path.join(tmp, 'missing', 'r.xml')] },
];

async function snapshot(s: Services) {
  // only this namespace's queues, names only: the vhost holds hundreds of other helpers' queues
  const page = await s.mgmt.request<{ items: { name: string }[] }>(
    'GET',
    `/api/queues/lab?page=1&page_size=500&use_regex=true&name=%5E${n.namespace}%5C.&columns=name`,
  );
  const queues = page.items.map((q) => q.name).sort();
  const tables = (
    await s.db`SELECT table_name FROM information_schema.tables WHERE table_name LIKE ${n.namespace + '\\_%'} ORDER BY 1`
  ).map((r) => String(r.table_name));
  return {
    queues,
    tables,
    sentinelDepth: await s.broker.depth(SENTINEL_Q),
    sentinelRows: must(
      (await s.db<{ n: number }[]>`SELECT count(*)::int AS n FROM ${s.db(SENTINEL_T)}`)[0],
      'the sentinel row count',
    ).n,
  };
}

describe('bad input through the CLI: one line, exit 2, no stack, no secret, nothing changed', () => {
  const s = useServices({
    setup: async (s) => {
      await s.broker.channel.assertQueue(SENTINEL_Q, { durable: true });
      await s.broker.channel.purgeQueue(SENTINEL_Q);
      await s.broker.sendConfirmed(SENTINEL_Q, 'keep me', { messageId: 'sentinel' });
      await s.db.unsafe(
        `CREATE TABLE IF NOT EXISTS ${SENTINEL_T}(id int PRIMARY KEY); INSERT INTO ${SENTINEL_T} VALUES (1) ON CONFLICT DO NOTHING`,
      );
    },
  });

  it(
    `${cases.length} bad inputs`,
    async () => {
      expect(cases.length).toBeGreaterThanOrEqual(20);
      const before = await snapshot(s);
      expect(before.sentinelDepth).toBe(1);
      for (const c of cases) {
        const r = await mqlab(c.args, c.env, 30_000);
        const why = `${c.what}: mqlab ${c.args.join(' ')}\n${r.stdout}\n${r.stderr}`;
        expect(r.code, why).toBe(2);
        expect(r.stdout, why).toBe('');
        const lines = r.stderr.trim().split('\n');
        expect(
          lines.filter((l) => /^(mqlab|error):/.test(l)),
          why,
        ).toHaveLength(1);
        // the cause, then only what to do: mqlab's '  → …', commander's '(Did you mean …?)' and '(run `mqlab --help` …)'
        expect(
          lines.slice(1).every((l) => /^( {2}→ |\()/.test(l)),
          why,
        ).toBe(true);
        expect(r.stderr, why).not.toMatch(/^\s+at /m);
        expect(r.stderr, why).not.toContain(SECRET);
      }
      expect(await snapshot(s)).toEqual(before);
      // each spawn is bounded by its own 30 s; the whole by their sum (the file runs beside others: on a
      // busy machine 38 spawns one after another took longer than vitest's 120 s default)
    },
    cases.length * 30_000,
  );
});
