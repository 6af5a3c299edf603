import { describe, expect, it } from 'vitest';
import { AT, AT_RE, mqlab, useNamespace } from './helpers.js';

useNamespace(import.meta.url);

// Every way the environment can be wrong: one line naming the service, the masked URL and the
// cause, a line saying what to do, exit code 2, no stack trace, no password.
const cases: { what: string; args: string[]; says: RegExp }[] = [
  {
    what: 'broker unreachable',
    args: ['--amqp-url', 'amqp://app:pw-secret@127.0.0.1:1/lab'],
    says: /^mqlab: RabbitMQ at amqp:\/\/app:\*\*\*@127\.0\.0\.1:1\/lab: unreachable \(connection refused\)$/m,
  },
  {
    what: 'broker credentials refused',
    args: ['--amqp-url', `amqp://app:pw-secret@${AT.amqp}/lab`],
    says: new RegExp(`^mqlab: RabbitMQ at amqp://app:\\*\\*\\*@${AT_RE.amqp}/lab: credentials refused$`, 'm'),
  },
  {
    what: 'missing vhost',
    args: ['--amqp-url', `amqp://app:app-lab-only@${AT.amqp}/no-such-vhost`],
    says: /vhost 'no-such-vhost' does not exist/,
  },
  { what: 'not an AMQP port', args: ['--amqp-url', `amqp://app:pw-secret@${AT.pg}/lab`], says: /no AMQP handshake/ },
  {
    what: 'malformed URL',
    args: ['--amqp-url', 'amqp://app:pw-secret@'],
    says: /^mqlab: malformed URL in MQLAB_AMQP_URL/m,
  },
  {
    what: 'wrong kind of URL',
    args: ['--pg-url', 'mysql://app:pw-secret@127.0.0.1/lab'],
    says: /MQLAB_PG_URL \/ --pg-url must start with postgres:\/\//m,
  },
  {
    what: 'database unreachable',
    args: ['--pg-url', 'postgres://app:pw-secret@127.0.0.1:1/lab'],
    says: /^mqlab: PostgreSQL at postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/lab: unreachable \(connection refused\)$/m,
  },
  {
    what: 'database credentials refused',
    args: ['--pg-url', `postgres://app:pw-secret@${AT.pg}/lab`],
    says: /PostgreSQL at .*: credentials refused/,
  },
  {
    what: 'missing database',
    args: ['--pg-url', `postgres://app:app-lab-only@${AT.pg}/no_such_db`],
    says: /database "no_such_db" does not exist/,
  },
  { what: 'bad namespace', args: ['--namespace', 'Not-Valid'], says: /invalid namespace 'Not-Valid'/ },
];

describe('environment errors', () => {
  for (const c of cases) {
    it(`${c.what}: one line, what to do, exit 2`, async () => {
      const r = await mqlab(['retry', ...c.args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(c.says);
      expect(r.stderr).toMatch(/^ {2}→ \S/m);
      expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(r.stdout + r.stderr).not.toContain('pw-secret');
      expect(r.stdout).toBe('');
    });
  }

  it('MQLAB_* variables are read like the flags', async () => {
    const r = await mqlab(['retry'], { MQLAB_PG_URL: 'postgres://app:pw-secret@127.0.0.1:1/lab' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PostgreSQL at postgres://app:***@127.0.0.1:1/lab: unreachable');
  });

  it('a lab that uses no database does not need PostgreSQL: it runs, and its document names no version', async () => {
    // dlx-loop's meta says database: false; the unreachable URL would be exit 2 for any lab that uses one
    const r = await mqlab(['dlx-loop', '--json'], { MQLAB_PG_URL: 'postgres://app:pw-secret@127.0.0.1:1/lab' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ schemaVersion: 2, postgres: null, result: 'passed' });
  });

  it('an unknown command is a usage error', async () => {
    const r = await mqlab(['no-such-lab']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'no-such-lab'");
  });

  it('management credentials refused: status says which service and exits 2', async () => {
    const r = await mqlab(['status', '--mgmt-url', `http://mqlab-admin:pw-secret@${AT.mgmt}`]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      new RegExp(
        `^management\\s+http://mqlab-admin:\\*\\*\\*@${AT_RE.mgmt}\\s+NOT USABLE: .*credentials refused$`,
        'm',
      ),
    );
    expect(r.stdout + r.stderr).not.toContain('pw-secret');
  });
});
