import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACCOUNTS, PORTS } from './defaults.js';
import { PROJECT_ROOT } from './config.js';

const read = (...p: string[]) => fs.readFileSync(path.join(PROJECT_ROOT, ...p), 'utf8');

describe('defaults stay in step with compose.yaml and config/', () => {
  const compose = read('compose.yaml');

  it('compose binds the default ports to 127.0.0.1 only', () => {
    expect(compose).toContain(`"127.0.0.1:${PORTS.amqp}:5672"`);
    expect(compose).toContain(`"127.0.0.1:${PORTS.management}:15672"`);
    expect(compose).toContain(`"127.0.0.1:${PORTS.postgres}:5432"`);
    expect(compose).not.toMatch(/- "\d+:\d+"/);
  });

  it('never collides with a system RabbitMQ or PostgreSQL', () => {
    const system = [5672, 15672, 25672, 4369, 5432];
    for (const port of Object.values(PORTS)) expect(system).not.toContain(port);
  });

  it('pins RabbitMQ 4.3.x with management and PostgreSQL 18.x', () => {
    expect(compose).toMatch(/image: rabbitmq:4\.3\.\d+-management\n/);
    expect(compose).toMatch(/image: postgres:18\.\d+\n/);
  });

  it('provisions app without admin tags and a management account for policies and statistics only', () => {
    const defs = JSON.parse(read('config', 'rabbitmq', 'definitions.json')) as {
      users: { name: string; tags: string[] }[];
      vhosts: { name: string }[];
    };
    const user = (n: string) => defs.users.find((u) => u.name === n);
    expect(user(ACCOUNTS.app.user)?.tags).toEqual([]);
    expect(user(ACCOUNTS.admin.user)?.tags).toEqual(['policymaker', 'monitoring']);
    expect(defs.vhosts).toEqual([{ name: ACCOUNTS.vhost }]);
    expect(compose).toContain(`POSTGRES_PASSWORD: ${ACCOUNTS.pgSuperuser.password}`);
    expect(read('config', 'postgres', 'init.sql')).toContain(`PASSWORD '${ACCOUNTS.app.password}'`);
  });

  it('shortens the dead-letter worker confirm timeout to a few seconds', () => {
    const m = /dead_letter_worker_publisher_confirm_timeout, (\d+)/.exec(read('config', 'rabbitmq', 'advanced.config'));
    expect(Number(m?.[1])).toBeGreaterThanOrEqual(1000);
    expect(Number(m?.[1])).toBeLessThanOrEqual(10000);
  });
});
