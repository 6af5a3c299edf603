/**
 * mqlab check, refused and cleaned up: a consumer that is not there, exits at once or never consumes
 * is one line and exit 2 (not a FAIL), and a run leaves no queue, row or process of its own behind.
 * The reference consumers' verdicts: test/check-consumers.int.test.ts.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { Ajv } from 'ajv';
import { mqlab, services, useNamespace } from './helpers.js';
import { commandOf, exampleSql, REFERENCE_CONSUMERS } from '../examples/consumers/catalogue.js';

const names = useNamespace(import.meta.url);
const sql = exampleSql(names.namespace);
const correct = REFERENCE_CONSUMERS.find((c) => c.file.endsWith('typescript/consumer.ts'))!;

/** one line on stderr, exit 2, no stack trace */
function refused(r: { code: number; stdout: string; stderr: string }, what: RegExp) {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('mqlab: '));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(what);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('mqlab check refuses a consumer it cannot check', () => {
  it('a command that is not there', async () => {
    refused(
      await mqlab(['check', '--consumer', 'no-such-consumer-xyz', '--only', 'duplicate']),
      /the consumer command was not found: no-such-consumer-xyz/,
    );
  });
  it('a consumer that exits at once', async () => {
    refused(
      await mqlab(['check', '--consumer', 'echo broken >&2; exit 3', '--only', 'duplicate']),
      /the consumer exited with code 3 before it consumed anything: broken/,
    );
  });
  it('a consumer that never consumes', async () => {
    const nap = `sleep 3${Date.now() % 1000}`; // its own: no other test's process matches it
    const r = await mqlab(['check', '--consumer', nap, '--only', 'duplicate', '--start-timeout', '2s']);
    refused(r, /the consumer ran for 2 s and never consumed from \S*mqlab-check\.\w+\.duplicate/);
    expect((await execa('pgrep', ['-f', `^${nap}$`], { reject: false })).stdout).toBe('');
  });
  it('bad flags', async () => {
    refused(await mqlab(['check', '--only', 'crash']), /--consumer is missing/);
    refused(await mqlab(['check', '--consumer', 'x', '--only', 'chaos']), /--only takes check groups, got 'chaos'/);
  });
});

describe('mqlab check leaves nothing behind', () => {
  it("no queue, no row, no process; its --json document is the schema's", async () => {
    // an argument the consumer ignores, so that this run's processes are told from any other's
    const consumer = `${commandOf(correct)} --test ${names.namespace}`;
    const r = await mqlab([
      'check',
      '--consumer',
      consumer,
      '--effects',
      sql.effects,
      '--cleanup',
      sql.cleanup,
      '--only',
      'duplicate,poison',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { runId: string; result: string; groups: { facts: { queue: string } }[] };
    const schema = JSON.parse(fs.readFileSync('docs/check.schema.json', 'utf8')) as object;
    const validate = new Ajv({ strict: true, allowUnionTypes: true, strictRequired: false }).compile(schema);
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    expect(doc.result).toBe('passed');
    const s = await services();
    try {
      const queues = (await s.mgmt.queues()).map((q) => q.name).filter((n) => n.includes(doc.runId));
      expect(queues).toEqual([]);
      const rows = await s.db.unsafe(
        `SELECT count(*)::int AS n FROM ${names.t('check_example_effects')} WHERE message_id LIKE 'chk-${doc.runId}-%'`,
      );
      expect(rows[0]?.n).toBe(0);
    } finally {
      await s.close();
    }
    expect((await execa('pgrep', ['-f', `--test ${names.namespace}`], { reject: false })).stdout).toBe('');
  });
});
