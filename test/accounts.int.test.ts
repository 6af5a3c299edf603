/**
 * No one gets in who does not belong (security review D1, D6): the administrative accounts of mqlab's
 * own services have a random password per data folder, kept in secrets.json (0600), which a second
 * local user cannot read; the fixed passwords of the source (ACCOUNTS) open nothing there. The
 * management account may set policies and read statistics on vhost lab, and nothing more; `up`'s own
 * administration goes through the node's CLI (src/services/admin.ts). On every broker line CI runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG, ROOT, useNamespace } from './helpers.js';
import { ACCOUNTS } from '../src/core/defaults.js';
import { recordedBackend } from '../src/services/data-folder.js';
import { SECRETS_FILE, readSecrets } from '../src/core/account-secrets.js';
import { brokerUsers, nodeCli, postgresAdmin } from '../src/services/admin.js';
import { pointsAt } from '../src/services/control.js';
import { asOtherUser, ensureOtherUser } from './other-user.js';

const isRoot = process.getuid?.() === 0;

const n = useNamespace(import.meta.url);
/** a vhost (and user) name the refused requests would make: removed after, should the defect be back */
const PROBE_VHOST = `${n.namespace}-probe`;
afterAll(async () => {
  if (!own) return;
  await nodeCli(CONFIG, 'rabbitmqctl', ['delete_vhost', PROBE_VHOST]).catch(() => {});
  await nodeCli(CONFIG, 'rabbitmqctl', ['delete_vhost', `${n.namespace}-other`]).catch(() => {});
  await nodeCli(CONFIG, 'rabbitmqctl', ['delete_user', PROBE_VHOST]).catch(() => {});
});

const own =
  ['chroot', 'system'].includes(recordedBackend(CONFIG.home) ?? '') &&
  pointsAt(CONFIG.pgUrl, CONFIG.ports.postgres) &&
  pointsAt(CONFIG.mgmtUrl, CONFIG.ports.management);

const mgmtBase = `http://127.0.0.1:${CONFIG.ports.management}`;
const basic = (user: string, password: string) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
/** a management API request as `user`, its HTTP status */
async function mgmtStatus(method: string, at: string, user: string, password: string, body?: unknown) {
  const r = await fetch(`${mgmtBase}${at}`, {
    method,
    headers: { authorization: basic(user, password), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  await r.arrayBuffer();
  return r.status;
}

/** PostgreSQL's postgres client where the second user can read it (the clone may be anywhere) */
const pgClientDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-accounts-'));
afterAll(() => fs.rmSync(pgClientDir, { recursive: true, force: true }));
function pgClient(): string {
  const copy = path.join(pgClientDir, 'postgres');
  if (!fs.existsSync(copy)) {
    fs.cpSync(path.join(ROOT, 'node_modules', 'postgres'), copy, { recursive: true });
    fs.chmodSync(pgClientDir, 0o755);
  }
  return path.join(copy, 'src', 'index.js');
}
/** as the second user: log in to PostgreSQL (client, port, user, password) and run the review's COPY … FROM PROGRAM */
const PROGRAM_PROBE = `(async () => {
  const [client, port, user, password] = process.argv.slice(1);
  const { default: postgres } = await import(client);
  const sql = postgres({ host: '127.0.0.1', port: Number(port), user, password, database: 'postgres', max: 1,
    connect_timeout: 10, onnotice: () => {} });
  try {
    await sql.unsafe("CREATE TEMP TABLE o(l text); COPY o FROM PROGRAM 'id'");
    console.log('SHELL ' + (await sql.unsafe('SELECT l FROM o'))[0].l);
  } catch (err) { console.log('REFUSED ' + err.code + ' ' + err.message); }
  await sql.end({ timeout: 1 });
})()`;

describe.skipIf(!own)("the administrative accounts of mqlab's own services", () => {
  it('secrets.json holds random passwords, mode 0600, owned by the one who ran `mqlab up`', () => {
    const file = path.join(CONFIG.home, SECRETS_FILE);
    const st = fs.statSync(file);
    expect((st.mode & 0o777).toString(8)).toBe('600');
    expect(st.uid).toBe(process.getuid?.());
    const s = readSecrets(CONFIG.home);
    expect(s?.postgres).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(s?.admin).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(s?.postgres).not.toBe(ACCOUNTS.pgSuperuser.password);
    expect(s?.admin).not.toBe(ACCOUNTS.admin.password);
  });

  it('D1: the PostgreSQL superuser refuses the fixed password of the source; the secret is the way in', async () => {
    const postgres = (await import('postgres')).default;
    const fixed = postgres({
      host: '127.0.0.1',
      port: CONFIG.ports.postgres,
      user: ACCOUNTS.pgSuperuser.user,
      password: ACCOUNTS.pgSuperuser.password,
      database: 'postgres',
      max: 1,
      onnotice: () => {},
    });
    try {
      await expect(fixed`select 1`).rejects.toMatchObject({ code: '28P01' }); // invalid_password
    } finally {
      await fixed.end({ timeout: 1 });
    }
    const admin = postgresAdmin(CONFIG);
    try {
      const [me] = await admin`select current_user as name, rolsuper from pg_roles where rolname = current_user`;
      expect(me).toEqual({ name: ACCOUNTS.pgSuperuser.user, rolsuper: true });
    } finally {
      await admin.end({ timeout: 1 });
    }
  });

  it('D6: the management account sets policies and reads statistics on vhost lab, and nothing more', async () => {
    const users = await brokerUsers(CONFIG);
    expect(users.find((u) => u.user === ACCOUNTS.admin.user)?.tags.sort()).toEqual(['monitoring', 'policymaker']);
    expect(users.filter((u) => u.tags.includes('administrator')).map((u) => u.user)).toEqual([]);
    const secret = readSecrets(CONFIG.home)!.admin;
    const as = (method: string, at: string, body?: unknown) =>
      mgmtStatus(method, at, ACCOUNTS.admin.user, secret, body);
    const vhost = encodeURIComponent(CONFIG.vhost);
    const policy = `/api/policies/${vhost}/${n.p('probe')}`;
    // what labs, status and audit ask of it
    expect(await as('GET', '/api/overview')).toBe(200);
    expect(await as('GET', `/api/queues/${vhost}`)).toBe(200);
    expect(await as('GET', '/api/nodes')).toBe(200);
    expect([201, 204]).toContain(
      await as('PUT', policy, { pattern: `^${n.namespace}\\.none$`, definition: { 'max-length': 1 } }),
    );
    expect(await as('GET', `/api/policies/${vhost}`)).toBe(200);
    expect(await as('DELETE', policy)).toBe(204);
    // what the review did with it: a vhost made and deleted (an administrator gets 201 and 204), users and
    // password hashes read, an administrator made
    expect(await as('PUT', `/api/vhosts/${PROBE_VHOST}`)).toBe(401);
    expect(await as('DELETE', `/api/vhosts/${PROBE_VHOST}`)).toBe(401);
    expect(await as('GET', '/api/users')).toBe(401);
    expect(await as('GET', '/api/definitions')).toBe(401);
    expect(await as('PUT', `/api/users/${PROBE_VHOST}`, { password: 'x', tags: 'administrator' })).toBe(401);
    // the fixed password of the source opens nothing
    expect(await mgmtStatus('GET', '/api/whoami', ACCOUNTS.admin.user, ACCOUNTS.admin.password)).toBe(401);
  });

  describe.skipIf(!isRoot)('a second local user', () => {
    it('cannot read secrets.json', async () => {
      await ensureOtherUser();
      const r = await asOtherUser(
        `try { require('fs').readFileSync(process.argv[1]); console.log('READ') } catch (e) { console.log(e.code) }`,
        [path.join(CONFIG.home, SECRETS_FILE)],
      );
      expect(r.stdout.trim(), r.stderr).toBe('EACCES');
    });

    it('D1: gets no shell through the superuser with the fixed password (the review: COPY … FROM PROGRAM)', async () => {
      await ensureOtherUser();
      const args = [pgClient(), String(CONFIG.ports.postgres), ACCOUNTS.pgSuperuser.user];
      const r = await asOtherUser(PROGRAM_PROBE, [...args, ACCOUNTS.pgSuperuser.password]);
      expect(r.stdout, r.stderr).toMatch(/^REFUSED 28P01 /);
      // the probe itself can succeed: with the secret (which only the owner of secrets.json reads) it gets the shell
      const own = await asOtherUser(PROGRAM_PROBE, [...args, readSecrets(CONFIG.home)!.postgres]);
      expect(own.stdout, own.stderr).toMatch(/^SHELL uid=/);
    });

    it('D6: with the fixed management password it gets 401 and makes no vhost', async () => {
      await ensureOtherUser();
      const r = await asOtherUser(
        `fetch(process.argv[1], { method: 'PUT', headers: { authorization: process.argv[2] } }).then((r) => console.log(r.status))`,
        [`${mgmtBase}/api/vhosts/${n.namespace}-other`, basic(ACCOUNTS.admin.user, ACCOUNTS.admin.password)],
      );
      expect(r.stdout.trim(), r.stderr).toBe('401');
    });
  });
});
