import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG, mqlab, useNamespace } from './helpers.js';
import { execa } from 'execa';
import { BASE_PORTS } from '../src/core/defaults.js';
import { outsideDir } from '../src/services/links.js';

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

  it('deletes a marked folder that holds only what mqlab made', async () => {
    const dir = home({ '.mqlab-data': 'x', 'rabbitmq/rabbitmq.conf': '', backend: 'system\n' });
    const r = await down(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/deleted .*: mqlab's RabbitMQ and PostgreSQL data/);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('D3: refuses a folder without the marker, however much its names look like mqlab’s', async () => {
    // the review: a mistyped MQLAB_HOME on a folder holding a real PostgreSQL folder named postgres
    const dir = home({ 'postgres/PG_VERSION_real': 'real db', 'root/notes.txt': 'notes', 'lock/x': '' });
    const r = await down(dir);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /^mqlab: not deleting .*: it is not mqlab's data folder \(no \.mqlab-data\): lock, postgres, root; kept everything, nothing stopped$/m,
    );
    expect(r.stderr).toContain('`mqlab up` marks it');
    expect(fs.readFileSync(path.join(dir, 'postgres/PG_VERSION_real'), 'utf8')).toBe('real db');
    expect(fs.readFileSync(path.join(dir, 'root/notes.txt'), 'utf8')).toBe('notes');
  });

  it('D2: deletes nothing through a link: a service folder linked elsewhere, a dangling one; the targets stay', async () => {
    const victim = home({ 'sub/file.txt': 'precious', 'top.txt': 'precious' });
    for (const target of [victim, path.join(victim, 'gone')]) {
      const dir = home({ '.mqlab-data': 'x', backend: 'chroot\n' });
      fs.symlinkSync(target, path.join(dir, 'postgres'));
      const r = await down(dir, 'auto');
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `postgres is a link to ${target}: mqlab deletes nothing through a link it did not make`,
      );
      expect(fs.readlinkSync(path.join(dir, 'postgres'))).toBe(target);
      expect(fs.readFileSync(path.join(victim, 'sub/file.txt'), 'utf8')).toBe('precious');
      expect(fs.readFileSync(path.join(victim, 'top.txt'), 'utf8')).toBe('precious');
    }
  });

  it('D2: the link mqlab makes itself (system backend, /var/tmp/mqlab-<id>/<service>) goes, with its folder', async () => {
    const dir = home({ '.mqlab-data': 'x', backend: 'system\n' });
    const away = outsideDir(dir, 'postgres');
    fs.mkdirSync(away, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(away, 'PG_VERSION'), '15');
    fs.symlinkSync(away, path.join(dir, 'postgres'));
    const r = await down(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.existsSync(dir)).toBe(false);
    expect(fs.existsSync(away)).toBe(false);
    expect(fs.existsSync(path.dirname(away))).toBe(false);
  });

  it('D2: mqlab’s own link whose folder is gone (a reboot cleaned /var/tmp) is unlinked, nothing else', async () => {
    const dir = home({ '.mqlab-data': 'x', backend: 'system\n' });
    fs.symlinkSync(outsideDir(dir, 'rabbitmq'), path.join(dir, 'rabbitmq'));
    const r = await down(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'D2: mqlab’s link name and target, but the /var/tmp folder another user made: refused, kept',
    async () => {
      // /var/tmp is everyone's: another user may make /var/tmp/mqlab-<id> first and put a link in it
      const dir = home({ '.mqlab-data': 'x', backend: 'system\n' });
      const away = outsideDir(dir, 'postgres');
      const victim = home({ 'top.txt': 'precious' });
      fs.mkdirSync(path.dirname(away), { mode: 0o755 });
      scratch.push(path.dirname(away));
      fs.symlinkSync(victim, away);
      fs.lchownSync(away, 65534, 65534);
      fs.chownSync(path.dirname(away), 65534, 65534);
      fs.symlinkSync(away, path.join(dir, 'postgres'));
      const r = await down(dir);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`postgres links to ${away}, but ${path.dirname(away)} belongs to uid 65534`);
      expect(fs.readFileSync(path.join(victim, 'top.txt'), 'utf8')).toBe('precious');
      expect(fs.lstatSync(away).isSymbolicLink()).toBe(true);
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    'D2: a root linked elsewhere: no umount through the link, its mount stays',
    async () => {
      const fake = home({ 'etc/hostname': 'fake' });
      fs.mkdirSync(path.join(fake, 'proc'));
      await execa('mount', ['-t', 'tmpfs', 'mqlab-test', path.join(fake, 'proc')]);
      try {
        const dir = home({ '.mqlab-data': 'x', backend: 'chroot\n' });
        fs.symlinkSync(fake, path.join(dir, 'root'));
        const r = await down(dir, 'auto');
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain(`root is a link to ${fake}`);
        expect((await execa('findmnt', [path.join(fake, 'proc')], { reject: false })).exitCode).toBe(0);
        expect(fs.readFileSync(path.join(fake, 'etc/hostname'), 'utf8')).toBe('fake');
      } finally {
        await execa('umount', [path.join(fake, 'proc')], { reject: false });
      }
    },
  );

  it('D17: refuses a Debian root holding files mqlab did not put there, or a root mqlab did not build', async () => {
    const stray = home({
      '.mqlab-data': 'x',
      'root/.mqlab-root': 'rabbitmq-server 4.3.6-1\n',
      'root/home/me/thesis.tex': 'x',
    });
    const r = await down(stray, 'auto');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('its Debian root holds files mqlab did not put there: root/home/me');
    expect(fs.existsSync(path.join(stray, 'root/home/me/thesis.tex'))).toBe(true);
    const notOurs = home({ '.mqlab-data': 'x', 'root/etc/passwd': 'root:x:0:0::/root:/bin/sh\n' });
    const n = await down(notOurs, 'auto');
    expect(n.code, n.stderr).toBe(2);
    expect(n.stderr).toContain('root (no .mqlab-root: not a root mqlab built)');
    expect(fs.existsSync(path.join(notOurs, 'root/etc/passwd'))).toBe(true);
  });

  it('two ups of one new set at once: the second waits for the first and finds the services up', async () => {
    // `mqlab up` beside `npm test`'s own: each once copied the Debian root over the other's copy, or
    // created the database the other had just created (an internal error, exit 1)
    const dir = path.join(home({}), 'set');
    // ports of their own below Linux's ephemeral range (32768 up): a node started on a port in it may find
    // it taken by an outgoing connection (29000 did: AMQP 34772, eaddrinuse); 50 above the suite's set,
    // inside the hundred its offset owns (a cluster of it takes + 10 and + 20 only), where no other set runs
    const env = { MQLAB_HOME: dir, MQLAB_PORT_OFFSET: String(CONFIG.ports.amqp - BASE_PORTS.amqp + 50) };
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
