import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AT, AT_RE, CLI, mqlab, useNamespace } from './helpers.js';

const { namespace } = useNamespace(import.meta.url);

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
    what: 'an HTTP server at the AMQP URL (the management port: it waits for a request)',
    args: ['--amqp-url', `amqp://app:pw-secret@${AT.mgmt}/lab`],
    // which comes first is a race: amqplib's 5 s timer, or the management listener closing an idle connection at 5 s
    says: /: no AMQP handshake \(the port accepts connections, but (?:nothing answered as AMQP within 5 s|closed the connection without an AMQP answer)\); is this the right port\?$/m,
  },
  {
    what: 'amqps:// to a plain AMQP port',
    args: ['--amqp-url', `amqps://app:pw-secret@${AT.amqp}/lab`],
    says: /: the server does not speak TLS on this port$/m,
  },
  {
    what: 'an unencoded @ in the password',
    args: ['--amqp-url', `amqp://app:pw-secret@RET/zz#?@${AT.amqp}/lab`],
    says: /the password holds a character that must be percent-encoded/,
  },
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

  it('the management API refused in the middle of a lab (dlx-loop): the one line, exit 2, and every report written', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-mgmt-'));
    try {
      const junit = path.join(dir, 'j.xml');
      const r = await mqlab(['dlx-loop', '--json', '--junit', junit], {
        MQLAB_MGMT_URL: `http://mqlab-admin:pw-secret@${AT.mgmt}`,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        /^mqlab: RabbitMQ management API at http:\/\/mqlab-admin:\*\*\*@.*: credentials refused$/m,
      );
      expect(r.stderr).not.toContain('internal error');
      expect(JSON.parse(r.stdout)).toMatchObject({ result: 'error', labs: [{ lab: 'dlx-loop', status: 'error' }] });
      expect(fs.readFileSync(junit, 'utf8')).toMatch(/credentials refused/);
      expect(r.stdout + r.stderr + fs.readFileSync(junit, 'utf8')).not.toContain('pw-secret');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a database where the lab may not create its tables: the one line, exit 2, no stack trace in any report', async () => {
    // database postgres: the app user has no CREATE on its schema public (PostgreSQL 15+)
    const url = `postgres://app:app-lab-only@${AT.pg}/postgres`;
    const r = await mqlab(['retry', '--json'], { MQLAB_PG_URL: url });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /^mqlab: PostgreSQL at postgres:\/\/app:\*\*\*@.*\/postgres: user app cannot create the lab's tables/m,
    );
    expect(r.stderr).toMatch(/^ {2}→ \S/m);
    expect(r.stdout + r.stderr).not.toMatch(/^\s+at /m);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: 'error' });
  });

  it('an output that cannot be written (--junit, --html on a full device): one line, exit 2', async () => {
    for (const args of [
      ['--junit', '/dev/full'],
      ['--html', '/dev/full'],
      ['--html', '/proc/self/nope.html'],
    ]) {
      const r = await mqlab(['compensate', ...args]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr, args.join(' ')).not.toContain('internal error');
      expect(r.stderr.trim().split('\n').length, r.stderr).toBeLessThanOrEqual(2);
    }
    // --json into a full device: the document cannot be printed
    const full = fs.openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, [CLI, 'compensate', '--json'], {
        stdio: ['ignore', full, 'pipe'],
        env: { ...process.env, NO_COLOR: '1', MQLAB_NAMESPACE: namespace },
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^mqlab: cannot write to standard output \(ENOSPC\)$/m);
      expect(r.stderr).not.toMatch(/^\s+at /m);
    } finally {
      fs.closeSync(full);
    }
  });

  it('a server that answers the AMQP header with HTTP (a proxy): no AMQP handshake, exit 2', async () => {
    const server = net.createServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as net.AddressInfo;
      const r = await mqlab(['retry', '--amqp-url', `amqp://app:pw-secret@127.0.0.1:${port}/lab`]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/: no AMQP handshake .*is this the right port\?$/m);
      expect(r.stderr).not.toMatch(/Frame size|^\s+at /m);
    } finally {
      server.close();
    }
  });
});
