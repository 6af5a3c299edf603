/**
 * The least-privilege account: on the management API mqlab needs no more than an account that may set
 * policies and read statistics (tags policymaker,monitoring — no administrator), with permissions
 * on vhost lab only. The tests that run labs with it create it through the node's CLI (mqlab's own
 * management account may not make accounts; idempotent: import_definitions creates or updates).
 */
import { putBrokerUser } from '../src/services/admin.js';
import { CONFIG, PORT } from './helpers.js';

export const MONITOR = { user: 'mqlab-safety-monitor', password: 'monitor-lab-only' } as const;
/** the environment that makes a CLI run use it */
export const MONITOR_ENV = {
  MQLAB_MGMT_URL: `http://${MONITOR.user}:${MONITOR.password}@127.0.0.1:${PORT.management}`,
};

export async function ensureMonitorAccount(): Promise<void> {
  await putBrokerUser(CONFIG, {
    user: MONITOR.user,
    password: MONITOR.password,
    tags: ['policymaker', 'monitoring'],
    permissions: { configure: '.*', write: '.*', read: '.*' },
  });
}
