/**
 * `mqlab status` and every lab need no more than the app account on AMQP and, on the
 * management API, an account that may only set policies and read statistics
 * (tags policymaker,monitoring — no administrator), with permissions on vhost lab only.
 * Every lab with it: reports.int.test.ts runs its `mqlab all --jobs 4` with this account.
 */
import { describe, expect, it } from 'vitest';
import { CONFIG, mqlab, useNamespace, useServices, PORT } from './helpers.js';
import { ACCOUNTS } from '../src/core/defaults.js';
import { brokerUsers } from '../src/services/admin.js';
import { MONITOR, MONITOR_ENV, ensureMonitorAccount } from './monitor-account.js';

useNamespace(import.meta.url);

describe('least privilege', () => {
  useServices({ setup: () => ensureMonitorAccount() });

  it('the accounts: app has no tags; the management account is policymaker,monitoring, not administrator', async () => {
    const users = await brokerUsers(CONFIG);
    const tags = (name: string) =>
      users
        .find((u) => u.user === name)
        ?.tags.slice()
        .sort();
    expect(tags(ACCOUNTS.app.user)).toEqual([]);
    expect(tags(MONITOR.user)).toEqual(['monitoring', 'policymaker']);
    expect(tags(ACCOUNTS.admin.user)).toEqual(['monitoring', 'policymaker']);
    // the account really lacks administrator rights: it may not list users
    const r = await fetch(`http://127.0.0.1:${PORT.management}/api/users`, {
      headers: { authorization: 'Basic ' + Buffer.from(`${MONITOR.user}:${MONITOR.password}`).toString('base64') },
    });
    expect(r.status).toBe(401);
  });

  it('mqlab status works with it', async () => {
    const r = await mqlab(['status'], MONITOR_ENV);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^management\s+http:\/\/mqlab-safety-monitor:\*\*\*@127\.0\.0\.1:\d+\s+reachable$/m);
    expect(r.stdout + r.stderr).not.toContain(MONITOR.password);
  });
});
