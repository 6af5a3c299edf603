/**
 * The passwords of the administrative accounts of one set of mqlab's own services: PostgreSQL's
 * superuser and RabbitMQ's management account `mqlab-admin`. Random per data folder, made by the
 * first `mqlab up` and kept in `<data folder>/secrets.json`, mode 0600, readable by the one who ran
 * `up` only: another local user cannot read them, so cannot log in as either (security review D1,
 * D6). The lab account `app` keeps its fixed password (ACCOUNTS.app): a workshop types it.
 * The default management URL reads the secret (config.ts); a data folder without one (Docker's
 * compose.yaml, or services mqlab did not start) gets the fixed lab-only password of ACCOUNTS.admin.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { ACCOUNTS } from './defaults.js';
import { EnvError } from './errors.js';

export const SECRETS_FILE = 'secrets.json';

interface AccountSecrets {
  /** PostgreSQL's superuser (ACCOUNTS.pgSuperuser.user) */
  postgres: string;
  /** RabbitMQ's management account (ACCOUNTS.admin.user): policymaker,monitoring on the lab vhost */
  admin: string;
}

const secretsPath = (home: string) => path.join(home, SECRETS_FILE);
const fresh = () => crypto.randomBytes(24).toString('base64url');

/** the data folder's secrets, or null when it has none (or they are not this user's to read) */
export function readSecrets(home: string): AccountSecrets | null {
  try {
    const s = JSON.parse(fs.readFileSync(secretsPath(home), 'utf8')) as Partial<AccountSecrets>;
    return typeof s.postgres === 'string' && typeof s.admin === 'string'
      ? { postgres: s.postgres, admin: s.admin }
      : null;
  } catch {
    return null;
  }
}

/** the data folder's secrets, or an EnvError saying whose they are (administration needs them) */
export function mustReadSecrets(home: string): AccountSecrets {
  const s = readSecrets(home);
  if (s) return s;
  throw new EnvError(
    `cannot read ${secretsPath(home)}: the administrative secrets of mqlab's services there`,
    'run as the user who ran `mqlab up` for this data folder (they are 0600), or run `mqlab up` first',
  );
}

/** the data folder's secrets, made once (0600, in a folder that exists): `mqlab up` before it writes any service */
export function ensureSecrets(home: string): AccountSecrets {
  const have = readSecrets(home);
  if (have) {
    fs.chmodSync(secretsPath(home), 0o600);
    return have;
  }
  const made: AccountSecrets = { postgres: fresh(), admin: fresh() };
  fs.rmSync(secretsPath(home), { force: true }); // a file left empty by a killed `up`: nothing used it yet
  fs.writeFileSync(secretsPath(home), JSON.stringify(made, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
  return made;
}

/** the management account's password for this data folder: its secret, else the fixed lab-only one */
export const adminPassword = (home: string): string => readSecrets(home)?.admin ?? ACCOUNTS.admin.password;
