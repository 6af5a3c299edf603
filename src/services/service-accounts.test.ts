import { describe, expect, it } from 'vitest';
import { EnvError } from '../core/errors.js';
import { idChanges } from './service-accounts.js';

const rows = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => l.split(':'));
// the 4.3 root's accounts as its packages made them (uid 101, 102: the machine's postgres and epmd)
const passwd = rows(`
root:x:0:0:root:/root:/bin/bash
epmd:x:996:996::/run/epmd:/usr/sbin/nologin
postgres:x:101:101:PostgreSQL administrator:/var/lib/postgresql:/bin/bash
rabbitmq:x:102:102:RabbitMQ messaging server:/var/lib/rabbitmq:/usr/sbin/nologin
`);
const group = rows(`
root:x:0:
ssl-cert:x:995:postgres
postgres:x:101:
rabbitmq:x:102:
`);

describe('the root’s service accounts take the ids of mqlab’s own (D9)', () => {
  it('maps each old id to the machine’s, users and groups apart', () => {
    const c = idChanges(passwd, group, { rabbitmq: { uid: 990, gid: 989 }, postgres: { uid: 991, gid: 992 } });
    expect([...c.uid]).toEqual([
      [102, 990],
      [101, 991],
    ]);
    expect([...c.gid]).toEqual([
      [102, 989],
      [101, 992],
    ]);
  });

  it('nothing to change when they have them; a swap of the two is one mapping', () => {
    const same = idChanges(passwd, group, { rabbitmq: { uid: 102, gid: 102 }, postgres: { uid: 101, gid: 101 } });
    expect([same.uid.size, same.gid.size]).toEqual([0, 0]);
    const swap = idChanges(passwd, group, { rabbitmq: { uid: 101, gid: 101 }, postgres: { uid: 102, gid: 102 } });
    expect([...swap.uid]).toEqual([
      [102, 101],
      [101, 102],
    ]);
  });

  it('refuses an id another of the root’s accounts holds', () => {
    expect(() =>
      idChanges(passwd, group, { rabbitmq: { uid: 996, gid: 990 }, postgres: { uid: 991, gid: 992 } }),
    ).toThrow(EnvError);
    expect(() =>
      idChanges(passwd, group, { rabbitmq: { uid: 990, gid: 995 }, postgres: { uid: 991, gid: 992 } }),
    ).toThrow(/the Debian root's group ssl-cert has id 995/);
  });
});
