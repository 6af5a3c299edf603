/**
 * The least-privilege account: on the management API mqlab needs no more than an account that may set
 * policies and read statistics (tags policymaker,monitoring — no administrator), with permissions
 * on vhost lab only. The tests that run labs with it create it (idempotent: PUT creates or updates).
 */
import type { Management } from '../src/broker/management.js';
import { ACCOUNTS } from '../src/core/defaults.js';
import { PORT } from './helpers.js';

export const MONITOR = { user: 'mqlab-safety-monitor', password: 'monitor-lab-only' } as const;
/** the environment that makes a CLI run use it */
export const MONITOR_ENV = {
  MQLAB_MGMT_URL: `http://${MONITOR.user}:${MONITOR.password}@127.0.0.1:${PORT.management}`,
};

export async function ensureMonitorAccount(mgmt: Management): Promise<void> {
  await mgmt.request('PUT', `/api/users/${MONITOR.user}`, {
    password: MONITOR.password,
    tags: 'policymaker,monitoring',
  });
  await mgmt.request('PUT', `/api/permissions/${ACCOUNTS.vhost}/${MONITOR.user}`, {
    configure: '.*',
    write: '.*',
    read: '.*',
  });
}
