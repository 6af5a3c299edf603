/**
 * `mqlab ctl` and `mqlab psql` reach this set's own RabbitMQ node and PostgreSQL, whatever the
 * backend and the port offset (CI runs this on each broker line): the node's listeners are this
 * set's ports, psql is connected to this set's port as the run's account with search_path lab. A
 * data folder without services is one line, exit 2.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mqlab, PORT, useNamespace } from './helpers.js';

useNamespace(import.meta.url);

describe('mqlab ctl and mqlab psql: this set’s services, with their own tools', () => {
  it('ctl: rabbitmqctl on this set’s node (its AMQP listener is this set’s port)', async () => {
    const vhosts = await mqlab(['ctl', 'list_vhosts', '--silent']);
    expect(vhosts.code, vhosts.stderr).toBe(0);
    expect(vhosts.stdout.split('\n')).toContain('lab');
    const listeners = await mqlab(['ctl', 'eval', 'application:get_env(rabbit, tcp_listeners).']);
    expect(listeners.code, listeners.stderr).toBe(0);
    expect(listeners.stdout.trim()).toBe(`{ok,[{"127.0.0.1",${PORT.amqp}}]}`);
  });

  it('psql: this set’s database and port, as the run’s account, search_path lab; the tool’s exit code', async () => {
    const r = await mqlab(['psql', '-tAc', "SELECT current_user, inet_server_port(), current_setting('search_path')"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`app|${PORT.postgres}|lab`);
    const bad = await mqlab(['psql', '-tAc', 'SELECT * FROM no_such_table']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/relation "no_such_table" does not exist/);
  });

  it('a data folder without services: one line, exit 2', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-ctl-'));
    const r = await mqlab(['ctl', 'status'], { MQLAB_HOME: home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mqlab: mqlab ctl: no RabbitMQ node that `mqlab up` started in /);
    expect(r.stderr.trim().split('\n')).toHaveLength(2); // the line and what to do
    fs.rmSync(home, { recursive: true, force: true });
  });
});
