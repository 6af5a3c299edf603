import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { DEFAULT_URLS } from './defaults.js';
import { UsageError } from './errors.js';

// a data folder with no secrets.json: the default management URL then holds the fixed lab password
// (account-secrets.ts); the project's own .mqlab/ holds random ones once `mqlab up` ran in this clone
const NO_SECRETS = { MQLAB_HOME: path.join(os.tmpdir(), 'mqlab-config-test-no-data-folder') };

describe('loadConfig', () => {
  it('defaults to what mqlab up starts', () => {
    const c = loadConfig({}, NO_SECRETS);
    expect(c).toMatchObject({
      amqpUrl: DEFAULT_URLS.amqp,
      pgUrl: DEFAULT_URLS.pg,
      mgmtUrl: DEFAULT_URLS.mgmt,
      vhost: 'lab',
      namespace: '',
    });
  });

  it('takes MQLAB_* variables, and flags over them', () => {
    const env = { MQLAB_AMQP_URL: 'amqp://u:p@h:1/v1', MQLAB_PG_URL: 'postgresql://u:p@h/db', MQLAB_NAMESPACE: 'ws1' };
    expect(loadConfig({}, env)).toMatchObject({
      amqpUrl: 'amqp://u:p@h:1/v1',
      vhost: 'v1',
      pgUrl: 'postgresql://u:p@h/db',
      namespace: 'ws1',
    });
    expect(loadConfig({ amqpUrl: 'amqp://x/%2F', namespace: 'ws2' }, env)).toMatchObject({
      vhost: '/',
      namespace: 'ws2',
    });
  });

  it('rejects a malformed URL without echoing its password', () => {
    const attempt = () => loadConfig({ amqpUrl: 'amqp://app:s3cret@' }, {});
    expect(attempt).toThrow(UsageError);
    expect(attempt).toThrow(/malformed URL in MQLAB_AMQP_URL/);
    try {
      attempt();
    } catch (e) {
      expect(String((e as Error).message)).not.toContain('s3cret');
    }
  });

  it('refuses a password whose @, /, ? or # is not percent-encoded: the host the driver reads is another', () => {
    for (const input of [
      { amqpUrl: 'amqp://app:Zq9SEC@RET/zz#?@127.0.0.1:6172/lab' },
      { pgUrl: 'postgres://app:x@y/z@127.0.0.1/lab' },
    ]) {
      const url = Object.values(input)[0]!;
      const attempt = () => loadConfig(input, {});
      expect(attempt, url).toThrow(/the password holds a character that must be percent-encoded/);
      try {
        attempt();
      } catch (e) {
        expect(String((e as Error).message)).not.toMatch(/Zq9SEC|RET\/zz|app:x@/);
      }
    }
    expect(() => loadConfig({ amqpUrl: 'amqp://app:a%40b%2F@127.0.0.1:5772/lab' }, {})).not.toThrow();
  });

  it('rejects a URL of the wrong kind', () => {
    expect(() => loadConfig({ pgUrl: 'mysql://a:b@h/db' }, {})).toThrow(
      /must start with postgres:\/\/ or postgresql:\/\//,
    );
    expect(() => loadConfig({ mgmtUrl: 'amqp://h' }, {})).toThrow(/must start with http:\/\//);
  });

  it('validates the namespace', () => {
    for (const bad of ['Upper', '1abc', 'a-b', 'x'.repeat(25), 'a.b'])
      expect(() => loadConfig({ namespace: bad }, {})).toThrow(UsageError);
    expect(loadConfig({ namespace: 'a_1' }, {}).namespace).toBe('a_1');
  });

  it('puts the local services under MQLAB_HOME when set', () => {
    expect(loadConfig({}, { MQLAB_HOME: '/tmp/x' }).home).toBe('/tmp/x');
    expect(loadConfig({}, {}).home).toMatch(/\.mqlab$/);
  });

  it('MQLAB_PORT_OFFSET moves every port and the default URLs, in one place', () => {
    const c = loadConfig({}, { ...NO_SECRETS, MQLAB_PORT_OFFSET: '300' });
    expect(c.ports).toEqual({ amqp: 6072, management: 16072, postgres: 5832, erlangDist: 26072, epmd: 4769 });
    expect(c.amqpUrl).toBe(DEFAULT_URLS.amqp.replace(':5772/', ':6072/'));
    expect(c.pgUrl).toBe(DEFAULT_URLS.pg.replace(':5532/', ':5832/'));
    expect(c.mgmtUrl).toBe(DEFAULT_URLS.mgmt.replace(':15772', ':16072'));
    expect(loadConfig({}, { MQLAB_PORT_OFFSET: '300', MQLAB_AMQP_URL: 'amqp://u:p@h:1/v' }).amqpUrl).toBe(
      'amqp://u:p@h:1/v',
    );
    for (const bad of ['-1', '1.5', 'ten', '40000', '0x190', ' 400', '400 ', '4e2', '+400'])
      expect(() => loadConfig({}, { MQLAB_PORT_OFFSET: bad })).toThrow(UsageError);
  });
});
