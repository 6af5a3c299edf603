import { describe, expect, it } from 'vitest';
import { AT, AT_RE, CONFIG, mqlab, startMqlab, useNamespace, useServices } from './helpers.js';
import { brokerUsers } from '../src/services/admin.js';
import { parseStatus } from './report.js';
import { printedShell } from './printed-shell.js';

const n = useNamespace(import.meta.url);

/** a terminal where the set's variables were typed before `mqlab up`, not exported: each printed line names the set */
const typed = printedShell({ set: 'typed' });

describe('mqlab up / status against the running services', () => {
  const s = useServices();

  it('up is idempotent: a second up finds the services and starts nothing; its lines run as printed', async () => {
    // what it did, not how long it took (a wall-time bound here failed at load 30: 7.2 s)
    const [before] = await s.db`SELECT pg_postmaster_start_time() AS t`;
    const r = await mqlab(['up']);
    expect(r.code, r.stderr).toBe(0);
    // its closing line's commands, typed as printed (issue 46), reach this set: `mqlab list` and
    // `mqlab retry` (no namespace: its own names, on this file's set alone, SERIAL); `mqlab all` is
    // all.int.test.ts's, which runs it on the disruptive set (every lab: minutes)
    const printed = [...r.stdout.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
    expect(printed.map((c) => c.replace(/^(MQLAB_\w+=\S+ )*/, ''))).toEqual(['mqlab list', 'mqlab retry', 'mqlab all']);
    const list = await typed.shell(printed[0]!);
    expect(list.code, list.out).toBe(0);
    expect(list.out).toMatch(/^ *retry\b/m);
    const ch = await s.broker.newChannel();
    for (const q of ['me12.retry.work', 'me12.retry.delay', 'me12.retry.dlq']) await ch.deleteQueue(q);
    await ch.close();
    await s.db.unsafe('DROP TABLE IF EXISTS retry_effect');
    const retry = await typed.shell(printed[1]!);
    expect(retry.code, retry.out).toBe(0);
    expect(await s.mgmt.queue('me12.retry.work')).toMatchObject({ messages: 0 });
    const rows = await s.db<{ event_id: string }[]>`SELECT event_id FROM retry_effect ORDER BY event_id`;
    expect(rows.map((row) => row.event_id)).toEqual(['healthy', 'transient']);
    expect(r.stderr).toContain('services are already up');
    expect(r.stderr).toMatch(
      new RegExp(`RabbitMQ \\d+\\.\\d+\\.\\d+ .*ready at amqp://app:\\*\\*\\*@${AT_RE.amqp}/lab`),
    );
    expect(r.stderr).not.toMatch(/starting|started/);
    const [after] = await s.db`SELECT pg_postmaster_start_time() AS t`;
    expect(after?.t).toEqual(before?.t);
    // the connection the test opened before it is still open: the node was not restarted
    expect(s.broker.open).toBe(true);
    await expect(s.broker.newChannel()).resolves.toBeDefined();
  });

  it('status shows masked URLs, versions, capabilities and the lab queues', async () => {
    await mqlab(['retry']);
    const r = await mqlab(['status', '--json']);
    expect(r.code).toBe(0);
    const st = parseStatus(r.stdout);
    expect(st.urls.amqp).toBe(`amqp://app:***@${AT.amqp}/lab`);
    expect(r.stdout).not.toContain('app-lab-only');
    expect(st.probe.amqp).toMatchObject({ ok: true, product: 'RabbitMQ' });
    expect(st.capabilities?.version).toBe(st.probe.amqp.version);
    const work = st.queues.find((q: { queue: string }) => q.queue === n.q('me12.retry.work'));
    expect(work).toMatchObject({ lab: 'retry', stats: { messages: 0, type: 'quorum' } });
    const text = await mqlab(['status']);
    expect(text.stdout).toMatch(
      new RegExp(`^ {2}retry\\s+${n.q('me12.retry.work').replace(/[.]/g, '\\.')}\\s+0\\s+0\\s+0\\s+0\\s+-$`, 'm'),
    );
    expect(text.stdout).toMatch(/^broker\s+RabbitMQ \d+\.\d+\.\d+ on Erlang/m);
  });

  it('status --namespace shows that namespace only: its queues and its quorum queues', async () => {
    await mqlab(['retry']); // this file's namespace
    const other = `${n.namespace}x`;
    await mqlab(['retry', '--namespace', other]);
    try {
      const text = await mqlab(['status', '--namespace', n.namespace]);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain(`lab queues of namespace ${n.namespace}:`);
      expect(text.stdout).toContain(n.q('me12.retry.work'));
      expect(text.stdout).not.toContain(`${other}.`);
      // the labs not run in this namespace: one line, not one row per queue
      expect(text.stdout).not.toContain('(not declared yet');
      expect(text.stdout).toMatch(/^ {2}\d+ queue\(s\) of \d+ lab\(s\) not declared yet: run the lab$/m);
      const st = parseStatus((await mqlab(['status', '--namespace', n.namespace, '--json'])).stdout);
      expect(st.namespace).toBe(n.namespace);
      expect(st.cluster?.quorumQueues.length).toBeGreaterThan(0);
      expect(st.cluster?.quorumQueues.filter((q) => !q.queue.startsWith(`${n.namespace}.`))).toEqual([]);
      // --lab narrows to one lab's queues; a wrong name is one line and exit 2
      const one = await mqlab(['status', '--namespace', n.namespace, '--lab', 'retry']);
      expect(
        one.stdout
          .split('\n')
          .filter((l) => /^ {2}\S+ {2,}\S+\s+\d+/.test(l))
          .every((l) => l.startsWith('  retry ')),
      ).toBe(true);
      const bad = await mqlab(['status', '--lab', 'nope']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("--lab takes lab names, got 'nope'");
    } finally {
      const ch = await s.broker.newChannel();
      for (const q of ['me12.retry.work', 'me12.retry.delay', 'me12.retry.dlq'])
        await ch.deleteQueue(`${other}.${q}`).catch(() => {});
      await ch.deleteExchange(`${other}.me12.retry.dead`).catch(() => {});
      await ch.close().catch(() => {});
      await s.db.unsafe(`DROP TABLE IF EXISTS ${other}_retry_effect`);
    }
  });

  it('status --watch, not on a terminal: the queues once per interval, no escape codes; Ctrl-C exits 0', async () => {
    const { child } = startMqlab(['status', '--namespace', n.namespace, '--lab', 'retry', '--watch', '1']);
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const t = Date.now();
    while ((out.match(/^mqlab status --watch /gm) ?? []).length < 2 && Date.now() - t < 30_000)
      await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect((out.match(/^mqlab status --watch /gm) ?? []).length).toBeGreaterThanOrEqual(2);
    expect(out).toContain(n.q('me12.retry.work'));
    expect(out).not.toContain('\x1b');
  });

  it('provisioning: app has no admin tags and is no superuser; schema lab belongs to app', async () => {
    const users = await brokerUsers(CONFIG);
    const tags = (n: string) => users.find((u) => u.user === n)?.tags.join(',');
    expect(tags('app')).toBe('');
    expect(tags('mqlab-admin')).toBe('policymaker,monitoring');
    expect(users.map((u) => u.user)).not.toContain('guest');
    const [me] =
      await s.db`SELECT current_user AS name, rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user`;
    expect(me).toMatchObject({ name: 'app', rolsuper: false, rolcreaterole: false, rolcreatedb: false });
    const [schema] = await s.db`SELECT nspowner::regrole::text AS owner FROM pg_namespace WHERE nspname = 'lab'`;
    expect(schema?.owner).toBe('app');
    const [path] = await s.db`SELECT current_schema() AS schema`;
    expect(path?.schema).toBe('lab');
  });

  it('status flags a real dead-letter loop without a TTL hop, with its path, and nothing else of ours', async () => {
    // in this file's namespace: `status` (run in it) shows the loops through its own objects only
    const loop = `${n.namespace}.loop`;
    const ch = await s.broker.newChannel();
    try {
      await ch.assertExchange(`${loop}.dlx`, 'direct', { durable: true });
      await ch.assertQueue(loop, {
        durable: true,
        arguments: { 'x-dead-letter-exchange': `${loop}.dlx`, 'x-dead-letter-routing-key': 'again' },
      });
      await ch.bindQueue(loop, `${loop}.dlx`, 'again');
      const r = await mqlab(['status']);
      expect(r.stdout).toContain(`LOOP ${loop} → ${loop}.dlx → ${loop}  (no TTL hop`);
      const st = parseStatus((await mqlab(['status', '--json'])).stdout);
      const flagged = (st.loops ?? []).map((l) => l.queue);
      expect(flagged).toContain(loop);
      expect(flagged.filter((q: string) => q.startsWith('me12.retry'))).toEqual([]);
    } finally {
      await ch.deleteQueue(loop);
      await ch.deleteExchange(`${loop}.dlx`);
      await ch.close();
    }
    const after = parseStatus((await mqlab(['status', '--json'])).stdout);
    expect((after.loops ?? []).map((l) => l.queue)).not.toContain(loop);
  });
});
