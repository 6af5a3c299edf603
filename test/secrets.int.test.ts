/**
 * Passwords are never printed. Every output channel of real runs — stdout (text and
 * --json), stderr (-v events, progress, errors), --junit, every --out file, status — is searched
 * for the passwords, in every form a client accepts them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG, mqlab, PORT, useNamespace } from './helpers.js';
import { ACCOUNTS } from '../src/core/defaults.js';
import { adminPassword } from '../src/core/account-secrets.js';
import { parseRun } from './report.js';

useNamespace(import.meta.url);

const SECRETS = [
  ACCOUNTS.app.password,
  ACCOUNTS.admin.password,
  adminPassword(CONFIG.home),
  encodeURIComponent(ACCOUNTS.app.password),
];
// the app's password in the query string (libpq's form): taken as the password, never printed
const PG_QUERY_URL = `postgresql://${ACCOUNTS.app.user}@127.0.0.1:${PORT.postgres}/${ACCOUNTS.database}?sslmode=disable&password=${ACCOUNTS.app.password}`;

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? filesUnder(path.join(dir, d.name)) : [path.join(dir, d.name)]));
}

function expectNoSecret(where: string, text: string, secrets = SECRETS) {
  for (const s of secrets) expect(text, `${where} shows a password`).not.toContain(s);
}

describe('passwords never printed', () => {
  it('a passing run with -v, --json, --junit and --out shows no password anywhere', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-secrets-'));
    const junit = path.join(dir, 'junit.xml');
    const r = await mqlab(['consumer-crash', '-v', '--json', '--junit', junit, '--out', path.join(dir, 'out')], {
      MQLAB_PG_URL: PG_QUERY_URL,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(parseRun(r.stdout).urls.pg).toBe(PG_QUERY_URL.replace(ACCOUNTS.app.password, '***'));
    expect(r.stderr).toMatch(/^\[consumer\] /m); // -v events really were printed
    expectNoSecret('stdout', r.stdout);
    expectNoSecret('stderr', r.stderr);
    const files = filesUnder(dir);
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) expectNoSecret(f, fs.readFileSync(f, 'utf8'));
  });

  it('status, text and --json', async () => {
    for (const args of [['status'], ['status', '--json']]) {
      const r = await mqlab(args, { MQLAB_PG_URL: PG_QUERY_URL });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expectNoSecret(args.join(' '), r.stdout + r.stderr);
    }
  });

  it('a wrong password in the query string is not printed by the lab nor by status', async () => {
    const url = `postgresql://app@127.0.0.1:${PORT.postgres}/lab?password=s3cret-wrong`;
    for (const args of [['retry'], ['retry', '--json'], ['status']]) {
      const r = await mqlab(args, { MQLAB_PG_URL: url });
      expect(r.code).toBe(2);
      expect(r.stdout + r.stderr).toContain('password=***');
      expectNoSecret(args.join(' '), r.stdout + r.stderr, ['s3cret-wrong']);
    }
  });
});
