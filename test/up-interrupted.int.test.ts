import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { CLI, CONFIG, mqlab, useNamespace } from './helpers.js';
import { BASE_PORTS } from '../src/core/defaults.js';

useNamespace(import.meta.url); // no lab runs here; the rule is one namespace per file

// security review D7: `up` killed while PostgreSQL's cluster was being made left a half-made cluster, and
// every later `up` failed ("internal error: database "postgres" does not exist") until `down --volumes`.
// A set of its own: a new data folder, on ports 70 above the suite's set, inside the hundred its offset
// owns (a cluster of it takes + 10 and + 20 only; down-volumes' two ups take + 50)
const home = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-killed-up-')), 'set');
const env = { MQLAB_HOME: home, MQLAB_PORT_OFFSET: String(CONFIG.ports.amqp - BASE_PORTS.amqp + 70) };

/** the cluster's folder (chroot: inside the root; system: in the data folder), once initdb has begun writing there */
const pgDirs = () => [path.join(home, 'root/mqlab/postgres'), path.join(home, 'postgres')];
const initdbWrote = () =>
  pgDirs().some(
    (d) =>
      fs.existsSync(d) &&
      fs.readdirSync(d).some((e) => /^data/.test(e) && fs.existsSync(path.join(d, e, 'PG_VERSION'))),
  );

/** the initdb of this set: in its Debian root (chroot), or naming its data folder (system) */
function initdbs(): number[] {
  const root = fs.existsSync(path.join(home, 'root')) ? fs.realpathSync(path.join(home, 'root')) : null;
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return /initdb/.test(cmd) && (cmd.includes(home) || fs.readlinkSync(`/proc/${pid}/root`) === root);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('an `up` killed while it makes the PostgreSQL cluster', () => {
  afterAll(async () => {
    const r = await mqlab(['down', '--volumes'], env);
    expect(r.code, r.stderr).toBe(0);
    fs.rmSync(path.dirname(home), { recursive: true, force: true });
  }, 120_000);

  it('D7: the next `up` makes the cluster anew and the services come up', async () => {
    const first = execa('node', [CLI, 'up'], { env: { ...process.env, ...env }, detached: true, reject: false });
    const started = Date.now();
    // killed the moment initdb has written into its folder (PG_VERSION comes first, the cluster much later)
    await new Promise<void>((resolve, reject) => {
      const look = setInterval(() => {
        if (initdbWrote()) return done();
        if (first.exitCode !== null || Date.now() - started > 600_000) done(new Error('up ended before initdb wrote'));
      }, 20);
      const done = (err?: Error) => {
        clearInterval(look);
        if (err) reject(err);
        else resolve();
      };
    });
    process.kill(-first.pid!, 'SIGKILL'); // mqlab and its process group
    // and initdb, which runs in a process group of its own: the machine stopping kills it too
    for (const pid of initdbs()) process.kill(pid, 'SIGKILL');
    const killed = await first;
    expect(killed.signal).toBe('SIGKILL');
    const again = await mqlab(['up'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/PostgreSQL .* ready at postgres:\/\/app:\*\*\*@127\.0\.0\.1:/);
    const leftovers = pgDirs().flatMap((d) => (fs.existsSync(d) ? fs.readdirSync(d) : []));
    expect(leftovers.filter((e) => /^data\.tmp/.test(e))).toEqual([]);
  }, 900_000);
});
