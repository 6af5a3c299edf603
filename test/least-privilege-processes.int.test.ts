import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { CONFIG, useNamespace } from './helpers.js';

useNamespace(import.meta.url); // no lab runs here; the rule is one namespace per file
import { recordedBackend } from '../src/services/data-folder.js';

// every process mqlab started listens on the loopback interface only (the Erlang
// distribution port included), and the broker does not run as root.
interface Listener {
  addr: string;
  port: number;
  pid: number;
}

async function listeners(): Promise<Listener[]> {
  const r = await execa('ss', ['-Hltnp']);
  const out: Listener[] = [];
  for (const line of r.stdout.split('\n')) {
    const local = line.trim().split(/\s+/)[3] ?? '';
    const [, addr, port] = /^(.*):(\d+)$/.exec(local) ?? [];
    for (const p of line.matchAll(/pid=(\d+)/g))
      if (addr !== undefined && port !== undefined) out.push({ addr, port: Number(port), pid: Number(p[1]) });
  }
  return out;
}

const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
// services mqlab started from this data folder (an older mqlab wrote no backend file)
const ownServices =
  ['system', 'chroot'].includes(recordedBackend(CONFIG.home) ?? '') ||
  fs.existsSync(path.join(CONFIG.home, 'rabbitmq'));

describe.skipIf(!ownServices || process.getuid?.() !== 0)(
  "mqlab's own services: loopback only, broker not root",
  () => {
    it('every listener of the processes on mqlab’s ports is on 127.0.0.1 or ::1', async () => {
      const all = await listeners();
      const ports = Object.values(CONFIG.ports);
      const pids = new Set(all.filter((l) => ports.includes(l.port)).map((l) => l.pid));
      expect(pids.size, `nothing listens on ${ports.join(', ')}`).toBeGreaterThanOrEqual(3); // beam, epmd, postgres
      const open = all.filter((l) => pids.has(l.pid) && !['127.0.0.1', '[::1]'].includes(l.addr));
      expect(open.map((l) => `${l.addr}:${l.port} (pid ${l.pid})`)).toEqual([]);
      for (const port of ports)
        expect(
          all.some((l) => l.port === port),
          `port ${port}`,
        ).toBe(true);
    });

    it('the broker and the database run as unprivileged users', async () => {
      const all = await listeners();
      const pidOn = (port: number) => all.find((l) => l.port === port)?.pid;
      for (const port of [CONFIG.ports.amqp, CONFIG.ports.erlangDist, CONFIG.ports.epmd, CONFIG.ports.postgres]) {
        const pid = pidOn(port)!;
        expect(uidOf(pid), `uid of the process on port ${port}`).not.toBe(0);
      }
    });

    it.skipIf(recordedBackend(CONFIG.home) !== 'chroot')(
      'D9: in the Debian root they run as the machine’s accounts of mqlab’s own, which own their files',
      async () => {
        // the root's packages picked ids that are other accounts on the machine (avahi, messagebus, _ssh)
        const all = await listeners();
        const nameOf = async (uid: number) => (await execa('getent', ['passwd', String(uid)])).stdout.split(':')[0];
        const broker = all.find((l) => l.port === CONFIG.ports.amqp)!.pid;
        const database = all.find((l) => l.port === CONFIG.ports.postgres)!.pid;
        expect(await nameOf(uidOf(broker))).toBe('mqlab-rabbitmq');
        expect(await nameOf(uidOf(database))).toBe('mqlab-postgres');
        const root = path.join(CONFIG.home, 'root');
        const cookie = fs.statSync(path.join(root, 'mqlab/rabbitmq/.erlang.cookie'));
        const group = async (gid: number) => (await execa('getent', ['group', String(gid)])).stdout.split(':')[0];
        expect([await nameOf(cookie.uid), await group(cookie.gid)]).toEqual(['mqlab-rabbitmq', 'mqlab-rabbitmq']);
        const data = fs.statSync(path.join(root, 'mqlab/postgres/data'));
        expect([await nameOf(data.uid), await group(data.gid)]).toEqual(['mqlab-postgres', 'mqlab-postgres']);
      },
    );

    it('the Erlang cookie is private to the broker’s user and not the package default', () => {
      const cookies = ['rabbitmq', 'root/mqlab/rabbitmq']
        .map((d) => path.join(CONFIG.home, d, '.erlang.cookie'))
        .filter((f) => fs.existsSync(f));
      expect(cookies.length).toBeGreaterThanOrEqual(1);
      for (const c of cookies) {
        const st = fs.statSync(c);
        expect((st.mode & 0o777).toString(8)).toBe('400');
        expect(st.uid).not.toBe(0);
        expect(fs.readFileSync(c, 'utf8')).toMatch(/^[0-9A-F]{48}$/);
      }
    });
  },
);
