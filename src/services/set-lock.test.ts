import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { diedDuringOutage, holdMachine, holdSet, readHolders, waitingFor, type Holder } from './set-lock.js';
import { EnvError } from '../core/errors.js';

const homes: string[] = [];
const home = () => {
  const h = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-lock-'));
  homes.push(h);
  return h;
};
afterEach(() => homes.splice(0).forEach((h) => fs.rmSync(h, { recursive: true, force: true })));

const quiet = { what: 'test', boundMs: 5_000, say: () => {}, pollMs: 20 };
const h = (o: Partial<Holder>): Holder => ({
  pid: 1,
  what: 'retry',
  mode: 'shared',
  state: 'holding',
  since: '2026-01-01T00:00:00Z',
  ...o,
});

describe('the set lock (flock on lock/set.lock in the data folder)', () => {
  it('shared holders share it; an exclusive one is refused with --no-wait, one line, while they hold it', async () => {
    const dir = home();
    const a = await holdSet(dir, { ...quiet, mode: 'shared', wait: false });
    const b = await holdSet(dir, { ...quiet, mode: 'shared', wait: false });
    await expect(holdSet(dir, { ...quiet, mode: 'exclusive', wait: false })).rejects.toThrow(EnvError);
    a.release();
    b.release();
    const c = await holdSet(dir, { ...quiet, mode: 'exclusive', wait: false });
    await expect(holdSet(dir, { ...quiet, mode: 'shared', wait: false })).rejects.toThrow(/are busy: waiting for/);
    c.release();
  });

  it('release closes only its own descriptors: not one that took a number it closed before', async () => {
    const dir = home();
    const lock = await holdSet(dir, { ...quiet, mode: 'shared', wait: false });
    // the gate's descriptor is closed once the set is held: the next open takes the lowest free number
    const other = fs.openSync(path.join(dir, 'someone-elses-file'), 'w');
    lock.release();
    expect(() => fs.fstatSync(other)).not.toThrow(); // a second close of the gate's number closed this one
    fs.closeSync(other);
  });

  it('a waiter waits, saying for what, and gets it when the holder lets go', async () => {
    const dir = home();
    const holder = await holdSet(dir, { ...quiet, mode: 'exclusive', wait: false });
    const said: string[] = [];
    const waiting = holdSet(dir, { ...quiet, mode: 'shared', wait: true, say: (l) => said.push(l) });
    // a holder in this same process is not listed (its file is this pid's): the line comes after 2 s
    await new Promise((r) => setTimeout(r, 2300));
    holder.release();
    (await waiting).release();
    expect(said[0]).toMatch(
      /^waiting for another mqlab run on this set to finish… \(up to 5 s; --no-wait to fail at once\)$/,
    );
    expect(said.at(-1)).toMatch(/^got the services after \d s$/);
  });

  it('gives up after its bound with one line', async () => {
    const dir = home();
    const holder = await holdSet(dir, { ...quiet, mode: 'exclusive', wait: false });
    await expect(holdSet(dir, { ...quiet, boundMs: 100, mode: 'exclusive', wait: true })).rejects.toThrow(
      /^gave up after \d+ s waiting for /,
    );
    holder.release();
  });

  it('a holder killed with SIGKILL leaves nothing held: the kernel releases its lock; its stale file is removed', async () => {
    const dir = home();
    fs.mkdirSync(path.join(dir, 'lock', 'holders'), { recursive: true });
    // the same technique as holdSet: this process opens the file, flock(1) locks that descriptor
    const script = `
      const fs = require('fs'), { spawnSync } = require('child_process');
      const fd = fs.openSync(${JSON.stringify(path.join(dir, 'lock', 'set.lock'))}, 'a');
      if (spawnSync('flock', ['-n', '-x', '3'], { stdio: ['ignore', 'ignore', 'inherit', fd] }).status !== 0) process.exit(3);
      fs.writeFileSync(${JSON.stringify(path.join(dir, 'lock', 'holders'))} + '/' + process.pid + '.json',
        JSON.stringify({ pid: process.pid, what: 'db-outage', mode: 'exclusive', state: 'holding', doing: 'to start PostgreSQL again', since: new Date().toISOString() }));
      process.stdout.write('held\\n');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    await expect(holdSet(dir, { ...quiet, mode: 'shared', wait: false })).rejects.toThrow(
      `waiting for db-outage (pid ${child.pid}) to start PostgreSQL again`,
    );
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    const said: string[] = [];
    const lock = await holdSet(dir, { ...quiet, mode: 'exclusive', wait: false, say: (l) => said.push(l) });
    expect(said).toEqual([
      `db-outage (pid ${child.pid}) ended while it was waiting to start PostgreSQL again: if a lab cannot connect, run \`mqlab up\``,
    ]);
    expect(readHolders(dir).live).toEqual([]);
    lock.release();
  });
});

describe('what a waiter says it waits for', () => {
  it('the exclusive holder and its step first, then the runs queued behind it', () => {
    expect(
      waitingFor([
        h({ pid: 7 }),
        h({ pid: 4242, what: 'db-outage', mode: 'exclusive', doing: 'to start PostgreSQL again' }),
      ]),
    ).toBe('db-outage (pid 4242) to start PostgreSQL again');
    expect(
      waitingFor([
        h({ pid: 5, what: 'broker-restart', mode: 'exclusive', state: 'waiting' }),
        h({ pid: 4, what: 'db-outage', mode: 'exclusive' }),
      ]),
    ).toBe('db-outage (pid 4) to finish, then 1 more run(s) that stop services');
    expect(waitingFor([h({ pid: 5, what: 'db-outage', mode: 'exclusive', state: 'waiting' })])).toBe(
      'db-outage (pid 5) to get the set (runs on it finish first)',
    );
  });

  it('an exclusive waiter: the shared holders by count and name, and why it waits for them', () => {
    expect(waitingFor([h({ pid: 1 }), h({ pid: 2, what: 'hold' })], undefined, 'exclusive')).toBe(
      '2 shared run(s) on this set to finish (retry pid 1, hold pid 2): this run stops services, so it needs the set alone',
    );
    expect(waitingFor([], undefined, 'exclusive')).toBe('another mqlab run on this set to finish');
  });

  it('a shared waiter with no exclusive run about: only the way in, nothing to finish', () => {
    expect(waitingFor([h({ pid: 1 }), h({ pid: 2, what: 'hold', state: 'waiting' })])).toBe(
      'the way in: 2 other run(s) are starting on this set at the same moment (shared runs: none waits for another to finish)',
    );
    // the set itself refused it (held alone by a run not listed): that run must finish
    expect(waitingFor([], undefined, 'shared', true)).toBe('another mqlab run on this set to finish');
  });

  it('ten shared runs starting at once pass the way in together, none saying it waits', async () => {
    const dir = home();
    const said: string[] = [];
    const started = Date.now();
    const locks = await Promise.all(
      Array.from({ length: 10 }, () =>
        holdSet(dir, { ...quiet, mode: 'shared', wait: true, say: (l) => said.push(l) }),
      ),
    );
    locks.forEach((l) => l.release());
    expect(said).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a run that died mid-outage is named once, with what to run', () => {
    expect(
      diedDuringOutage([h({ mode: 'exclusive', what: 'db-outage', pid: 9, doing: 'to start PostgreSQL again' })]),
    ).toMatch(/^db-outage \(pid 9\) ended while it was waiting to start PostgreSQL again: .*`mqlab up`$/);
    expect(diedDuringOutage([h({ mode: 'exclusive', doing: 'to finish' }), h({})])).toBeNull();
  });
});

describe("the machine's install lock (holdMachine: one apt-get, one root build at a time)", () => {
  it('a second install waits for the first, saying it waits for an install, and gets its turn', async () => {
    const dir = home();
    const first = await holdMachine(dir, 'mqlab up installing nftables', () => {});
    const said: string[] = [];
    const second = holdMachine(dir, 'mqlab up installing nftables', (l) => said.push(l));
    await new Promise((r) => setTimeout(r, 2300));
    first?.release();
    (await second)?.release();
    expect(said[0]).toMatch(/^waiting for another mqlab run on this set to finish… \(up to 20 min\)$/);
    expect(said.at(-1)).toMatch(/^got its turn to install after \d s$/);
  });
});
