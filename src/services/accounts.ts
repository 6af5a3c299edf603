/**
 * The account model of mqlab's own services, put in place on services that run already: a data folder
 * from before the secrets (account-secrets.ts) gets them, and its running services the accounts that
 * go with them — PostgreSQL's superuser its secret (provisionPostgres rotates the fixed password), the
 * management account policymaker,monitoring with its secret (the node's definitions, imported through
 * its CLI). A node started later imports the same definitions at boot (rabbitmq-node.ts writeFiles).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../core/config.js';
import { PROJECT_ROOT } from '../core/config.js';
import { ensureSecrets, readSecrets } from '../core/account-secrets.js';
import { importDefinitions } from './admin.js';
import { provisionPostgres } from './postgres-cluster.js';
import { nodeDefinitions } from './rabbitmq-node.js';

/** true when it made the secrets and applied them (the caller's URLs change), false when they were there */
export async function adoptSecrets(config: Config, log: (line: string) => void): Promise<boolean> {
  if (readSecrets(config.home)) return false;
  const secrets = ensureSecrets(config.home);
  await provisionPostgres(config.home, config.ports, log);
  const template = fs.readFileSync(path.join(PROJECT_ROOT, 'config', 'rabbitmq', 'definitions.json'), 'utf8');
  await importDefinitions(config, JSON.parse(nodeDefinitions(template, secrets.admin)) as object);
  log(
    `the management account is policymaker,monitoring with this data folder's secret now, no administrator (${path.join(config.home, 'secrets.json')})`,
  );
  return true;
}
