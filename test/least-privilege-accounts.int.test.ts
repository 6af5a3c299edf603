/**
 * Issue 16: `mqlab status` and every lab need no more than the app account on AMQP and, on the
 * management API, an account that may only set policies and read statistics
 * (tags policymaker,monitoring — no administrator), with permissions on vhost lab only.
 */
import { describe, expect, it } from 'vitest';
import { mqlab, useNamespace, useServices, PORT } from './helpers.js';
import { ACCOUNTS } from '../src/defaults.js';

const USER = 'mqlab-safety-monitor';
const PASSWORD = 'monitor-lab-only';
const MGMT_URL = `http://${USER}:${PASSWORD}@127.0.0.1:${PORT.management}`;
const NS = useNamespace(import.meta.url).namespace;
const env = { MQLAB_MGMT_URL: MGMT_URL };

describe('least privilege', () => {
  const s = useServices({
    setup: async (s) => {
      // idempotent: PUT creates or updates the same user
      await s.mgmt.request('PUT', `/api/users/${USER}`, { password: PASSWORD, tags: 'policymaker,monitoring' });
      await s.mgmt.request('PUT', `/api/permissions/${ACCOUNTS.vhost}/${USER}`, {
        configure: '.*',
        write: '.*',
        read: '.*',
      });
    },
  });

  it('the accounts: app has no tags; the management account is policymaker,monitoring, not administrator', async () => {
    const app = await s.mgmt.request<{ tags: string[] | string }>('GET', `/api/users/${ACCOUNTS.app.user}`);
    expect([app.tags].flat().join(',')).toBe('');
    const monitor = await s.mgmt.request<{ tags: string[] | string }>('GET', `/api/users/${USER}`);
    expect([monitor.tags].flat().join(',').split(',').sort()).toEqual(['monitoring', 'policymaker']);
    // the account really lacks administrator rights: it may not list users
    const r = await fetch(`http://127.0.0.1:${PORT.management}/api/users`, {
      headers: { authorization: 'Basic ' + Buffer.from(`${USER}:${PASSWORD}`).toString('base64') },
    });
    expect(r.status).toBe(401);
  });

  it('mqlab status works with it', async () => {
    const r = await mqlab(['status'], env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^management\s+http:\/\/mqlab-safety-monitor:\*\*\*@127\.0\.0\.1:\d+\s+reachable$/m);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  });

  it('mqlab all passes with it', { timeout: 900_000 }, async () => {
    // (the labs that stop a service need no management rights and are left out: a restart adds a minute)
    // four at once: their policies and queues in four namespaces at a time, all with this account
    // (--jobs names a lab's namespace <namespace>_j<n>: the file's own, cut to leave room for _j21)
    const r = await mqlab(
      ['all', '--jobs', '4', '--namespace', NS.slice(0, 20), '--skip', 'db-outage,broker-restart'],
      env,
      900_000,
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // a lab this broker cannot run (delayed-retry before 4.3) is counted as skipped, never as passed
    expect(r.stdout).toMatch(/^ALL: \d+ lab\(s\) in \d+\.\d s, none failed(, \d+ skipped)?$/m);
    expect(r.stdout + r.stderr).not.toMatch(/HTTP 401|HTTP 403|not_authorised|access_refused/i);
  });
});
