/**
 * A class on one set (`mqlab class …`, src/class/): thirty students made in one import; each
 * student's credentials reach their own vhost and schema and nothing of another's — the broker and
 * the database refuse; a lab passes with them; `class reset` empties one student and leaves the
 * others byte for byte; `class down` leaves nothing. On every broker line CI runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import postgres from 'postgres';
import { Broker } from '../src/broker/broker.js';
import { CLI, CONFIG, mqlab, startMqlab, useNamespace, expectPassed } from './helpers.js';
import { asStudentUser, cliFor, ensureStudentUsers } from './other-user.js';
import { tcpProxy } from './tcp-proxy.js';
import type { Board } from '../src/class/board-data.js';
import { startRecorder } from '../src/class/recorder.js';
import { catalogue } from '../labs/catalogue.js';
import { nodeCli, postgresAdmin } from '../src/services/admin.js';
import type { StudentCard } from '../src/class/lines.js';

useNamespace(import.meta.url);

const STUDENTS = 30;
let cards: StudentCard[] = [];
const card = (name: string) => cards.find((c) => c.name === name)!;
/** a student's environment: the line they were handed, nothing of the teacher's */
const envOf = (c: StudentCard) => ({
  MQLAB_STUDENT: c.name,
  MQLAB_NAMESPACE: c.namespace,
  MQLAB_AMQP_URL: c.urls.amqp,
  MQLAB_PG_URL: c.urls.pg,
  MQLAB_MGMT_URL: c.urls.mgmt,
});
const basic = (c: StudentCard) =>
  'Basic ' + Buffer.from(`${c.name}:${new URL(c.urls.amqp).password}`).toString('base64');
const mgmtAs = (c: StudentCard, path: string, init: RequestInit = {}) =>
  fetch(new URL(path, `http://127.0.0.1:${CONFIG.ports.management}`), {
    ...init,
    headers: { authorization: basic(c), 'content-type': 'application/json', ...init.headers },
  });
/** `--skip` of every lab but these */
const everyLabBut = (keep: string[]) =>
  catalogue
    .map((l) => l.name)
    .filter((n) => !keep.includes(n))
    .join(',');
const sqlAs = (c: StudentCard) => postgres(c.urls.pg, { max: 1, onnotice: () => {} });

/** the board's first `board` event, read with the token of `url` (as the page's own requests carry it) */
async function boardOnce(url: URL, base = url.origin): Promise<Board> {
  const events = await fetch(`${base}/events`, {
    headers: { authorization: `token ${url.searchParams.get('token')}` },
  });
  expect(events.status).toBe(200);
  const reader = events.body!.getReader();
  let text = '';
  while (!/\n\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  return JSON.parse(/^data: (.*)$/m.exec(text)![1]!) as Board;
}

type StudentState = Record<string, unknown> & { queues: unknown[]; rows: Record<string, unknown> };

/**
 * What the broker and the database hold of every student at one moment, by name: their account,
 * vhost, definitions, queue depths, tables' rows and board rows (one export, one query of every
 * queue's depth, one database session)
 */
async function classState(): Promise<Map<string, string>> {
  const names = cards.map((c) => c.name);
  const exported = await nodeCli(CONFIG, 'rabbitmqctl', ['export_definitions', '-', '--format', 'json']);
  const defs = JSON.parse(exported.stdout.slice(exported.stdout.indexOf('{'))) as Record<string, unknown[]>;
  // every queue's depth, exact (not the management's sampled statistics): the node encodes them as JSON,
  // the CLI prints that as an Erlang binary, perhaps over several lines: its quoted pieces joined
  const depthsOut = await nodeCli(CONFIG, 'rabbitmqctl', [
    'eval',
    'rabbit_json:encode([#{vhost => V, name => N, depth => rabbit_amqqueue:info(Q, [messages, messages_ready, messages_unacknowledged])} || Q <- rabbit_amqqueue:list(), {resource, V, queue, N} <- [amqqueue:get_name(Q)]]).',
  ]);
  expect(depthsOut.exitCode, depthsOut.stderr).toBe(0);
  const pieces = [...depthsOut.stdout.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]).join('');
  const depths = JSON.parse(JSON.parse(`"${pieces}"`) as string) as { vhost: string; name: string; depth: unknown }[];
  const sql = postgresAdmin(CONFIG, 'lab');
  try {
    const tables = await sql<{ s: string; t: string }[]>`
      SELECT table_schema AS s, table_name AS t FROM information_schema.tables
      WHERE table_schema = ANY(${names}) ORDER BY 1, 2`;
    const rows = new Map<string, Record<string, unknown>>();
    for (const { s, t } of tables)
      rows.set(s, {
        ...rows.get(s),
        [t]: (await sql.unsafe(`SELECT * FROM ${s}.${t} ORDER BY 1`)).map((r) => JSON.stringify(r)),
      });
    const runs = await sql<{ student: string }[]>`SELECT * FROM mqlab_class.runs ORDER BY id`;
    const of = (k: string, key: string, name: string) =>
      (defs[k] ?? [])
        .filter((x) => (x as Record<string, unknown>)[key] === name)
        .map((x) => JSON.stringify(x))
        .sort();
    return new Map(
      names.map((name) => [
        name,
        JSON.stringify({
          user: of('users', 'name', name),
          vhost: of('vhosts', 'name', name),
          ...Object.fromEntries(
            ['queues', 'exchanges', 'bindings', 'policies', 'parameters', 'permissions', 'topic_permissions'].map(
              (k) => [k, of(k, 'vhost', name)],
            ),
          ),
          depths: depths
            .filter((d) => d.vhost === name)
            .map((d) => JSON.stringify(d))
            .sort(),
          rows: rows.get(name) ?? {},
          runs: runs.filter((r) => r.student === name).map((r) => JSON.stringify(r)),
        }),
      ]),
    );
  } finally {
    await sql.end({ timeout: 1 });
  }
}

describe('a class of thirty on one set', () => {
  beforeAll(async () => {
    await mqlab(['class', 'down']);
  });
  afterAll(async () => {
    await mqlab(['class', 'down']);
  });

  it(`${STUDENTS} students in one import, in under 30 s; one line each, and the same as one JSON document`, async () => {
    const started = Date.now();
    const r = await mqlab(['class', 'up', '--students', String(STUDENTS), '--json']);
    const ms = Date.now() - started;
    expect(r.code, r.stderr).toBe(0);
    cards = (JSON.parse(r.stdout) as { students: StudentCard[] }).students;
    expect(cards.map((c) => c.name)).toEqual(Array.from({ length: STUDENTS }, (_, i) => `s${i + 1}`));
    expect(ms).toBeLessThan(30_000);
    console.log(`class up --students ${STUDENTS}: ${ms} ms (the command's own line: ${r.stderr.split('\n')[0]})`);
    const lines = await mqlab(['class', 'lines']);
    expect(lines.stdout.trim().split('\n')).toEqual(cards.map((c) => c.line));
  });

  it("the lines written to a file others may read (`> lines.txt`, umask 022): the file is made the teacher's only", async () => {
    const file = path.join(os.tmpdir(), `mqlab-class-lines-${process.pid}.txt`);
    fs.writeFileSync(file, '');
    fs.chmodSync(file, 0o644);
    try {
      const r = await execa('sh', ['-c', `"${process.execPath}" "${CLI}" class lines > "${file}"`], { reject: false });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(r.stderr).toContain(
        'the file the lines go to was readable by others (mode 644): it is yours only now (600)',
      );
      expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toEqual(cards.map((c) => c.line));
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it("a student's line runs a lab, in their own vhost and schema", async () => {
    const r = await mqlab(['consumer-crash'], envOf(card('s1')));
    expectPassed(r, { line: /^consumer-crash: / });
  });

  it("a student's status and --names: their own vhost's queues, their own schema's tables", async () => {
    const status = await mqlab(['status', '--lab', 'consumer-crash'], envOf(card('s1')));
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^RabbitMQ {4}amqp:\/\/s1:\*\*\*@127\.0\.0\.1:\d+\/s1 {2}reachable$/m);
    expect(status.stdout).toMatch(/^ {2}consumer-crash {2}s1\.orders\.crash /m);
    const names = await mqlab(['outbox', '--names'], envOf(card('s1')));
    expect(names.stdout).toContain('(your own schema s1: SELECT * FROM <table>)');
  });

  describe("student s1's credentials on student s2's things", () => {
    beforeAll(async () => {
      // s2 has a queue, a policy and a table of their own
      const b = await Broker.connect(card('s2').urls.amqp);
      await b.channel.assertQueue('s2.mine', { durable: true });
      await b.close();
      const p = await mgmtAs(card('s2'), '/api/policies/s2/s2-mine', {
        method: 'PUT',
        body: JSON.stringify({ pattern: '^s2\\.mine$', definition: { 'max-length': 5 }, 'apply-to': 'queues' }),
      });
      expect(p.status).toBeLessThan(300);
      const sql = sqlAs(card('s2'));
      await sql`CREATE TABLE IF NOT EXISTS mine (id int)`;
      await sql`INSERT INTO mine VALUES (1)`;
      await sql.end();
    });

    it("AMQP: the broker refuses s2's vhost to s1 at connection.open (s2 itself opens it)", async () => {
      const url = card('s1').urls.amqp.replace(/\/s1$/, '/s2');
      // the broker closes the connection with 530 NOT_ALLOWED "access to vhost 's2' refused for user 's1'"
      // (its log); amqplib reports only that ConnectionOpenOk did not come, which mqlab says in one line
      await expect(Broker.connect(url)).rejects.toThrow(/vhost 's2' does not exist or the user may not use it/);
      const own = await Broker.connect(card('s2').urls.amqp);
      await own.close();
    });

    it("management: s2's queue, its policy and the vhost are not s1's to see or change", async () => {
      const s1 = card('s1');
      for (const path of ['/api/queues/s2/s2.mine', '/api/queues/s2', '/api/policies/s2', '/api/exchanges/s2']) {
        const r = await mgmtAs(s1, path);
        // 3.10.8: 401 not_authorised; 4.3.6: 404 (a vhost the user may not see is not there for them)
        expect([401, 403, 404], path).toContain(r.status);
        expect(await r.text()).not.toContain('s2.mine');
      }
      expect((await mgmtAs(s1, '/api/queues/s2/s2.mine', { method: 'DELETE' })).status).toBeGreaterThanOrEqual(400);
      // s1's whole view: their own vhost only
      const vhosts = (await (await mgmtAs(s1, '/api/vhosts')).json()) as { name: string }[];
      expect(vhosts.map((v) => v.name)).toEqual(['s1']);
      const queues = (await (await mgmtAs(s1, '/api/queues')).json()) as { vhost: string }[];
      expect(new Set(queues.map((q) => q.vhost))).toEqual(new Set(['s1']));
    });

    it("policies: the broker refuses s1's policy in s2's vhost; s1's catch-all in its own vhost reaches nothing of s2's", async () => {
      const s1 = card('s1');
      const body = JSON.stringify({ pattern: '.*', definition: { 'message-ttl': 100 }, 'apply-to': 'queues' });
      const refused = await mgmtAs(s1, '/api/policies/s2/evil', { method: 'PUT', body });
      expect([401, 403, 404]).toContain(refused.status);
      const own = await mgmtAs(s1, '/api/policies/s1/catch-all', { method: 'PUT', body });
      expect(own.status).toBeLessThan(300);
      // what s2's queue runs with, seen by s2: its own policy, not s1's
      const deadline = Date.now() + 15_000;
      let policy: unknown;
      do {
        policy = ((await (await mgmtAs(card('s2'), '/api/queues/s2/s2.mine')).json()) as { policy?: unknown }).policy;
      } while (
        policy !== 's2-mine' &&
        Date.now() < deadline &&
        (await new Promise((r) => setTimeout(r, 250))) === undefined
      );
      expect(policy).toBe('s2-mine');
      await mgmtAs(s1, '/api/policies/s1/catch-all', { method: 'DELETE' });
    });

    it("PostgreSQL: s2's table is refused to s1 (permission denied for schema s2)", async () => {
      const sql = sqlAs(card('s1'));
      try {
        await expect(sql`SELECT * FROM s2.mine`).rejects.toMatchObject({ code: '42501' });
        await expect(sql`CREATE TABLE s2.intruder (id int)`).rejects.toMatchObject({ code: '42501' });
        await expect(sql`SELECT * FROM lab.lab_runs_none`).rejects.toMatchObject({ code: '42501' });
      } finally {
        await sql.end();
      }
    });
  });

  describe('the board, predictions and the labs kept to the teacher', () => {
    it("a student's runs are rows on the board; another student reads none of them and deletes nothing", async () => {
      const r = await mqlab(
        ['retry', '--predict', 'transientAttempts=1,2,3 businessRows=3 shortestRetryGapMs>=500'],
        envOf(card('s5')),
      );
      expectPassed(r, { line: /^retry: / });
      expect(r.stderr).toContain(
        'retry: prediction: transientAttempts=1,2,3 ✓; businessRows=3 ✗ (actual 2); shortestRetryGapMs>=500 ✓',
      );
      const own = sqlAs(card('s5'));
      const other = sqlAs(card('s6'));
      try {
        const [row] = await own<{ status: string; prediction: { name: string; right: boolean }[] }[]>`
          SELECT status, prediction FROM mqlab_class.runs WHERE lab = 'retry' ORDER BY id DESC LIMIT 1`;
        expect(row?.status).toBe('passed');
        expect(row?.prediction.map((p) => [p.name, p.right])).toEqual([
          ['transientAttempts', true],
          ['businessRows', false],
          ['shortestRetryGapMs', true],
        ]);
        expect(await other`SELECT * FROM mqlab_class.runs WHERE student = 's5'`).toEqual([]);
        expect((await other`UPDATE mqlab_class.runs SET status = 'failed' WHERE student = 's5'`).count).toBe(0);
        await expect(other`DELETE FROM mqlab_class.runs`).rejects.toMatchObject({ code: '42501' });
      } finally {
        await own.end();
        await other.end();
      }
    });

    it('the board shows them, through a tunnel to its port too (a loopback name on another port)', async () => {
      const board = startMqlab(['class', 'board', '--port', '0']);
      try {
        await board.stderrShows('?token=', 30_000);
        const url = new URL(/http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+/.exec(board.stderr())![0]);
        const tunnel = await tcpProxy(Number(url.port));
        try {
          const base = `http://127.0.0.1:${tunnel.port}`;
          // no token, or another one, in the address or the header: no page and no feed
          const wrong = 'f'.repeat(32);
          for (const [path, headers] of [
            ['/', {}],
            [`/?token=${wrong}`, {}],
            ['/events', {}],
            [`/events?token=${wrong}`, {}],
            ['/events', { authorization: `token ${wrong}` }],
          ] as const) {
            const r = await fetch(`${base}${path}`, { headers });
            expect(r.status, path).toBe(403);
            expect(await r.text()).toMatch(/^class board needs the token mqlab printed/);
          }
          const page = await fetch(`${base}/?token=${url.searchParams.get('token')}`);
          expect(page.status).toBe(200);
          expect(await page.text()).toContain('mqlab class board');
          const board = await boardOnce(url, base);
          expect(board.students.map((st) => st.name)).toEqual(cards.map((c) => c.name));
          const s5 = board.students.find((st) => st.name === 's5')!;
          expect(s5.runs[0]).toMatchObject({
            lab: 'retry',
            state: 'passed',
            predict: 'transientAttempts=1,2,3 businessRows=3 shortestRetryGapMs>=500',
          });
        } finally {
          await tunnel.close();
        }
      } finally {
        board.child.kill('SIGINT');
        await board.exited(30_000);
      }
    });

    it('a second run of the same lab in the same namespace is told another run uses it', async () => {
      // the first run: a recorder as a run of consumer-crash holds it from its start (src/class/recorder.ts)
      const c = card('s6');
      const first = await startRecorder({ pgUrl: c.urls.pg, vhost: c.vhost, student: c.name }, null, () => {});
      await first!.labStarting('consumer-crash', c.namespace);
      try {
        const second = await mqlab(['consumer-crash'], envOf(c));
        expect(second.stderr).toMatch(
          /^mqlab: another run of consumer-crash is using namespace s6 now \(started \d\d:\d\d:\d\d on .+, pid \d+\): the two purge and reset each other's queues and rows, and either may FAIL/m,
        );
      } finally {
        await first!.close(); // its connection ends: the namespace is free
      }
      const third = await mqlab(['consumer-crash'], envOf(c));
      expect(third.stderr).not.toContain('another run');
    });

    it("the labs that stop services are the teacher's: a student's run refuses them alone, and SKIPs them in all", async () => {
      const alone = await mqlab(['db-outage'], envOf(card('s7')));
      expect(alone.code).toBe(2);
      expect(alone.stderr).toMatch(
        /^mqlab: db-outage stops, restarts or reconfigures a service the whole class uses: the teacher runs it, not a student's credentials \(MQLAB_STUDENT=s7\)$/m,
      );
      const all = await mqlab(
        ['all', '--skip', everyLabBut(['db-outage', 'broker-restart', 'consumer-timeout'])],
        envOf(card('s7')),
      );
      expect(all.code, all.stdout + all.stderr).toBe(0);
      for (const lab of ['db-outage', 'broker-restart', 'consumer-timeout'])
        expect(all.stdout).toContain(
          `SKIP ${lab}: stops, restarts or reconfigures a service the whole class uses: the teacher runs it, not a student's credentials (MQLAB_STUDENT=s7)`,
        );
    });

    it("the teacher's `mqlab all` says what it would stop under the class, and without --yes (no terminal) does not start", async () => {
      const r = await mqlab(['all', '--skip', everyLabBut(['db-outage'])], {}, 60_000);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^mqlab: all: db-outage stops, restarts or reconfigures a service of this set, under the class of 30 student\(s\) who use it \(s1, s2, s3, … s30 \(30\); \d+ of their runs under way now\): their runs wait or fail meanwhile\n {2}→ add --yes to stop it anyway, or leave it out: --skip db-outage$/,
      );
    });
  });

  it("ten students, ten local accounts without root and without MQLAB_HOME, run ten labs at once from the teacher's copy: all pass, and the board shows them", async () => {
    const labs = ['retry', 'consumer-crash', 'retry-dlq', 'hold', 'outbox', 'publish-confirm', 'auto-ack-loss'];
    labs.push('dead-letter-reasons', 'archive', 'ordering');
    const users = await ensureStudentUsers('mqlab-stu', labs.length);
    const reach = await cliFor(users[0]!, CLI);
    onTestFinished(reach.remove);
    const started = Date.now();
    // what each types, as docs/workshop.md prints it: their line, then mqlab from their home folder
    const runs = await Promise.all(
      users.map((user, i) =>
        asStudentUser(
          user,
          `${card(`s${i + 11}`).line}; echo "uid=$(id -u) home=\${MQLAB_HOME-none} cwd=$PWD"; ${process.execPath} ${reach.cli} ${labs[i]} --predict PASS`,
        ),
      ),
    );
    console.log(`ten local students, ten labs at once: ${Date.now() - started} ms`);
    runs.forEach((r, i) => {
      const [who, ...rest] = r.stdout.split('\n');
      expect(who).toMatch(new RegExp(`^uid=[1-9]\\d* home=none cwd=/home/${users[i]}$`));
      expectPassed({ ...r, stdout: rest.join('\n') }, { line: new RegExp(`^${labs[i]}: `) });
      expect(r.stderr).toContain(`${labs[i]}: prediction: verdict=PASS ✓`);
    });
    const board = startMqlab(['class', 'board', '--port', '0']);
    try {
      await board.stderrShows('?token=', 30_000);
      const url = new URL(/http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+/.exec(board.stderr())![0]);
      const shown = await boardOnce(url);
      for (const [i, lab] of labs.entries())
        expect(shown.students.find((st) => st.name === `s${i + 11}`)?.runs[0]).toMatchObject({
          lab,
          state: 'passed',
          predict: 'verdict=PASS',
        });
    } finally {
      board.child.kill('SIGINT');
      await board.exited(30_000);
    }
  });

  it("class reset s3 empties s3's vhost and schema, leaves s3's account; every other student's state is the same, byte for byte", async () => {
    for (const s of ['s2', 's3', 's4'])
      expectPassed(await mqlab(['retry-dlq'], envOf(card(s))), { line: /^retry-dlq: / });
    // s3 has a policy of their own too
    const policy = await mgmtAs(card('s3'), '/api/policies/s3/s3-all', {
      method: 'PUT',
      body: JSON.stringify({ pattern: '.*', definition: { 'message-ttl': 100_000 }, 'apply-to': 'queues' }),
    });
    expect(policy.status).toBeLessThan(300);
    const before = await classState();
    const r = await mqlab(['class', 'reset', 's3']);
    expect(r.code, r.stderr).toBe(0);
    const after = await classState();
    for (const c of cards.filter((c) => c.name !== 's3')) expect(after.get(c.name), c.name).toBe(before.get(c.name));
    const s3Before = JSON.parse(before.get('s3')!) as StudentState;
    const s3 = JSON.parse(after.get('s3')!) as StudentState;
    expect(s3Before.queues.length).toBeGreaterThan(0);
    expect(Object.keys(s3Before.rows).length).toBeGreaterThan(0);
    for (const emptied of ['queues', 'bindings', 'policies', 'depths'] as const)
      expect(s3[emptied], emptied).toEqual([]);
    expect(s3.rows).toEqual({});
    // s3's account, vhost, permissions, limits and board rows (no --runs) as they were, the password's hash too
    for (const kept of ['user', 'vhost', 'permissions', 'parameters', 'topic_permissions', 'runs'])
      expect(s3[kept], kept).toEqual(s3Before[kept]);
    // and s3 starts again with their line as it was
    expectPassed(await mqlab(['consumer-crash'], envOf(card('s3'))), { line: /^consumer-crash: / });
  });

  it('class down leaves no user, vhost, permission, role, schema or row', async () => {
    const r = await mqlab(['class', 'down']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/removed 30 student\(s\)/);
    const exported = await nodeCli(CONFIG, 'rabbitmqctl', ['export_definitions', '-', '--format', 'json']);
    const defs = JSON.parse(exported.stdout.slice(exported.stdout.indexOf('{'))) as Record<
      string,
      { name?: string; user?: string; vhost?: string; tags?: unknown }[]
    >;
    const students = new Set(cards.map((c) => c.name));
    expect(defs.users!.filter((u) => students.has(u.name!) || JSON.stringify(u.tags).includes('mqlab-class'))).toEqual(
      [],
    );
    expect(defs.vhosts!.filter((v) => students.has(v.name!))).toEqual([]);
    expect(defs.permissions!.filter((p) => students.has(p.user!) || students.has(p.vhost!))).toEqual([]);
    const sql = postgresAdmin(CONFIG, 'lab');
    try {
      const roles =
        await sql`SELECT rolname FROM pg_roles WHERE rolname LIKE 's%' AND rolname ~ '^s[0-9]+$' OR rolname LIKE 'mqlab_class%'`;
      expect(roles).toEqual([]);
      const schemas =
        await sql`SELECT nspname FROM pg_namespace WHERE nspname ~ '^s[0-9]+$' OR nspname = 'mqlab_class'`;
      expect(schemas).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
    const refused = await mqlab(['consumer-crash'], envOf(card('s1')));
    expect(refused.code).toBe(2);
  });
});
