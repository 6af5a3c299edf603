import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mqlab, useNamespace } from './helpers.js';

useNamespace(import.meta.url);

// A second checkout (another data folder) on the ports of the running set: its `up` and `down` say
// whose services answer, and its `down` leaves them running.
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-other-home-'));
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

describe('another data folder on the same ports', () => {
  it('up says the services answering are another set’s (exit 2: their management password is not this folder’s); down stops nothing of them', async () => {
    const up = await mqlab(['up'], { MQLAB_HOME: home });
    expect(up.code, up.stderr).toBe(2);
    expect(up.stderr).toContain(
      `services answer on these ports, but the management API refuses the account of ${home}: they run from another data folder`,
    );
    expect(up.stderr).toContain('MQLAB_PORT_OFFSET=100 mqlab up');
    expect(fs.readdirSync(home)).not.toContain('root'); // nothing started or built for it

    const down = await mqlab(['down'], { MQLAB_HOME: home });
    expect(down.code, down.stderr).toBe(0);
    const downSays = `${down.stdout}\n${down.stderr}`;
    expect(downSays).toContain('RabbitMQ node was not running');
    expect(downSays).toContain(`services still answer on these ports: they do not run from this data folder (${home})`);

    // the running set's services answer as before (its own data folder)
    const status = await mqlab(['status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^RabbitMQ\s+\S+\s+reachable$/m);
    expect(status.stdout).toMatch(/^PostgreSQL\s+\S+\s+reachable$/m);
  });
});
