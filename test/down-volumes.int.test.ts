import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG, mqlab, useNamespace } from './helpers.js';
import { BASE_PORTS } from '../src/core/defaults.js';

useNamespace(import.meta.url);

// a regression test: `mqlab down --volumes` once deleted a whole MQLAB_HOME, with files mqlab never made.
// A scratch folder and a port offset nothing listens on: nothing here touches the running services.
const scratch: string[] = [];
const home = (files: Record<string, string>) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-home-'));
  scratch.push(dir);
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text);
  }
  return dir;
};
const down = (dir: string, backend = 'system') =>
  mqlab(['down', '--volumes', '--backend', backend], { MQLAB_HOME: dir, MQLAB_PORT_OFFSET: '29000' });

describe('mqlab down --volumes deletes only what mqlab created', () => {
  afterEach(() => {
    for (const d of scratch.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('refuses a folder that is not mqlab’s (a thesis in it): one line, exit 2, everything kept', async () => {
    const dir = home({ 'docs/thesis.txt': 'four years of work' });
    for (const backend of ['system', 'local', 'auto']) {
      const r = await down(dir, backend);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        /^mqlab: not deleting .*: it is not mqlab's data folder \(no \.mqlab-data\): docs; kept everything, nothing stopped$/m,
      );
      expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
      expect(fs.readFileSync(path.join(dir, 'docs/thesis.txt'), 'utf8')).toBe('four years of work');
    }
  });

  it('refuses mqlab’s folder when it also holds something else, and says what was kept', async () => {
    const dir = home({ '.mqlab-data': 'x', 'postgres/PG_VERSION': '15', 'notes.md': 'mine' });
    const r = await down(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/holds files mqlab did not create: notes\.md; kept everything/);
    expect(fs.existsSync(path.join(dir, 'notes.md'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'postgres/PG_VERSION'))).toBe(true);
  });

  it('deletes a folder that holds only what mqlab made (marked or from an older mqlab)', async () => {
    for (const files of [
      { '.mqlab-data': 'x', 'rabbitmq/rabbitmq.conf': '', backend: 'system\n' },
      { 'postgres/x': '' },
    ] as Record<string, string>[]) {
      const dir = home(files);
      const r = await down(dir);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/deleted .*: mqlab's RabbitMQ and PostgreSQL data/);
      expect(fs.existsSync(dir)).toBe(false);
    }
  });

  it('two ups of one new set at once: the second waits for the first and finds the services up', async () => {
    // `mqlab up` beside `npm test`'s own: each once copied the Debian root over the other's copy, or
    // created the database the other had just created (an internal error, exit 1)
    const dir = path.join(home({}), 'set');
    // ports of their own below Linux's ephemeral range (32768 up): a node started on a port in it may find
    // it taken by an outgoing connection (29000 did: AMQP 34772, eaddrinuse); 300 above the suite's set,
    // where no set of a CI run (offsets 0, 1000 … 6000) or of a helper session (its own hundreds) runs
    const env = { MQLAB_HOME: dir, MQLAB_PORT_OFFSET: String(CONFIG.ports.amqp - BASE_PORTS.amqp + 300) };
    try {
      const [a, b] = await Promise.all([mqlab(['up'], env), mqlab(['up'], env)]);
      expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
      const [waited] = [a, b].filter((r) => /waiting for mqlab up \(pid \d+\)/.test(r.stderr));
      expect(waited?.stderr).toMatch(/got its turn to start the services after \d+ s\nmqlab: services are already up/);
    } finally {
      const r = await mqlab(['down', '--volumes'], env);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(fs.existsSync(dir)).toBe(false);
  }, 300_000);

  it('up refuses to move into a folder that holds other files', async () => {
    const dir = home({ 'docs/thesis.txt': 'four years of work' });
    const r = await mqlab(['up', '--backend', 'system'], { MQLAB_HOME: dir, MQLAB_PORT_OFFSET: '29000' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not mqlab's data folder and holds docs/);
    expect(fs.readdirSync(dir)).toEqual(['docs']);
  });
});
