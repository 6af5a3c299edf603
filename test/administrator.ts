/**
 * An administrator of the set's broker, for the tests that read what only an administrator may (another
 * vhost's queues, GET /api/definitions): mqlab's own management account is policymaker,monitoring on
 * vhost lab (security review D6). Made through the node's CLI with a random password, deleted after.
 */
import crypto from 'node:crypto';
import { Management } from '../src/broker/management.js';
import { deleteBrokerUser, putBrokerUser } from '../src/services/admin.js';
import { CONFIG } from './helpers.js';

/** the management API as a new administrator `user` (every permission on the config's vhost too) */
export async function makeAdministrator(user: string): Promise<Management> {
  const password = crypto.randomBytes(18).toString('base64url');
  await putBrokerUser(CONFIG, {
    user,
    password,
    tags: ['administrator'],
    permissions: { configure: '.*', write: '.*', read: '.*' },
  });
  const url = new URL(CONFIG.mgmtUrl);
  url.username = user;
  url.password = password;
  return new Management(url.href.replace(/\/$/, ''), CONFIG.vhost);
}

export const dropAdministrator = (user: string) => deleteBrokerUser(CONFIG, user);
