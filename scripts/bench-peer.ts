/**
 * npm run bench -- --peer [--runs N] [--peer-dir DIR]: mqlab next to the RetryLab program the retry labs
 * follow (Java), mode by mode (retry, hold, replay, compensate), on the same services: the ones
 * the program hard-codes, this machine's RabbitMQ and PostgreSQL packages on 5672 and 5432. Two scripts
 * outside the project do the work (DIR, default ../shared/peer beside the repository): peer-env.sh
 * sets the services up, seed-retrylab.sh builds that program unchanged and runs one mode. Its
 * code never enters the project. Services the bench started are stopped at its end.
 * Anything missing (the scripts, root, a port taken by something else) is a skip with its reason.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { execa } from 'execa';
import { portsFor } from '../src/core/defaults.js';

export const PEER_MODES = ['retry', 'hold', 'replay', 'compensate'] as const;

/** the services the seed hard-codes (the packages' default ports), and mqlab's URLs for them (peer-env.sh's accounts) */
const PEER_PORTS = { amqp: 5672, pg: 5432, mgmt: 15672, erlangDist: 25672, epmd: 4369 } as const;
const PEER_ENV = {
  MQLAB_AMQP_URL: `amqp://app:app-lab-only@127.0.0.1:${PEER_PORTS.amqp}/lab`,
  MQLAB_PG_URL: `postgres://app:app-lab-only@127.0.0.1:${PEER_PORTS.pg}/lab`,
  MQLAB_MGMT_URL: `http://peer:peer-only@127.0.0.1:${PEER_PORTS.mgmt}`,
};

export interface PeerRun {
  ms: number;
  ok: boolean;
  /** the first line of stdout: the seed's summary line, which mqlab prints too */
  summary: string;
}

interface PeerMode {
  mode: string;
  seed: PeerRun[];
  mqlab: PeerRun[];
  /**
   * the broker's own waits, which both programs sit out alike (retry: the two TTL expiries of the delay
   * queue; hold: the dead-letter worker's timer), measured by one more mqlab run with --json on the same
   * broker; null for the modes with none
   */
  brokerWaitMs: number | null;
}

/** where a mode's --json facts say how long the broker itself kept the program waiting */
const BROKER_WAITS: Partial<Record<(typeof PEER_MODES)[number], (facts: Record<string, unknown>) => number | null>> = {
  // the delay queue's TTL, twice: the gaps between the transient event's three receipts
  retry: (f) => (Array.isArray(f.retryGapsMs) ? f.retryGapsMs.reduce((a: number, b) => a + Number(b), 0) : null),
  // the rejection to the worker's delivery: its confirm-timeout timer
  hold: (f) => (typeof f.recoveryAfterRejectMs === 'number' ? f.recoveryAfterRejectMs : null),
};

/** why the peer runs cannot happen here, or null */
export function peerRefusal(dir: string, offsets: readonly number[]): string | null {
  for (const f of ['peer-env.sh', 'seed-retrylab.sh'])
    if (!fs.existsSync(path.join(dir, f))) return `no ${f} in ${dir} (--peer-dir DIR names the folder)`;
  if (process.getuid?.() !== 0) return 'peer-env.sh installs and starts system services: run the bench as root';
  // the shared sets must not sit on the seed's ports (they are mqlab's defaults + an offset)
  for (const offset of offsets) {
    const p = portsFor(offset);
    const clash = Object.values(PEER_PORTS).filter((port) => Object.values(p).includes(port));
    if (clash.length) return `mqlab's services at port offset ${offset} use the seed's port(s) ${clash.join(', ')}`;
  }
  return null;
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => (s.destroy(), resolve(true)));
    s.on('error', () => resolve(false));
  });

/** run every mode `runs` times with the seed program, then with mqlab; stop what was not running before */
export async function peerRuns(
  dir: string,
  cli: string,
  runs: number,
  say: (line: string) => void,
): Promise<PeerMode[]> {
  const before = { amqp: await listening(PEER_PORTS.amqp), pg: await listening(PEER_PORTS.pg) };
  const home = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'mqlab-peer-'));
  try {
    await setUp(dir, say);
    const out: PeerMode[] = [];
    for (const mode of PEER_MODES) {
      // the seed's hold needs the me12-hold policy, which mqlab's hold removes when done: the seed runs first
      const seed: PeerRun[] = [];
      for (let i = 0; i < runs; i++) seed.push(await timed('bash', [path.join(dir, 'seed-retrylab.sh'), mode], {}));
      const mqlab: PeerRun[] = [];
      // MQLAB_HOME: a folder of its own, so no set lock or recorded times of the bench's services apply
      for (let i = 0; i < runs; i++)
        mqlab.push(await timed('node', [cli, mode], { ...PEER_ENV, MQLAB_HOME: home, NO_COLOR: '1' }));
      const waits = BROKER_WAITS[mode];
      out.push({ mode, seed, mqlab, brokerWaitMs: waits ? await brokerWait(cli, mode, home, waits) : null });
      say(
        `peer ${mode}: seed ${seed.map((r) => Math.round(r.ms)).join(' ')} ms, mqlab ${mqlab.map((r) => Math.round(r.ms)).join(' ')} ms`,
      );
    }
    return out;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
    await stopStarted(before, say);
  }
}

/** one more (untimed) mqlab run with --json: the broker's own wait in it, or null */
async function brokerWait(
  cli: string,
  mode: string,
  home: string,
  waits: (facts: Record<string, unknown>) => number | null,
): Promise<number | null> {
  const r = await execa('node', [cli, mode, '--json'], {
    reject: false,
    env: { ...process.env, ...PEER_ENV, MQLAB_HOME: home, NO_COLOR: '1' },
    timeout: 300_000,
  });
  try {
    const facts = (JSON.parse(r.stdout) as { labs: { facts?: Record<string, unknown> }[] }).labs[0]?.facts;
    return facts ? waits(facts) : null;
  } catch {
    return null;
  }
}

/** peer-env.sh; once more when it fails (a broker booting under load misses its first wait) */
async function setUp(dir: string, say: (line: string) => void): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const r = await execa('bash', [path.join(dir, 'peer-env.sh')], { reject: false, all: true });
    if (r.exitCode === 0) return;
    if (attempt === 2) throw new Error(`peer-env.sh failed:\n${r.all.split('\n').slice(-5).join('\n')}`);
    say('peer-env.sh failed once (the broker may still be starting): again');
  }
}

async function timed(cmd: string, args: string[], env: Record<string, string>): Promise<PeerRun> {
  const t = performance.now();
  const r = await execa(cmd, args, { reject: false, env: { ...process.env, ...env }, timeout: 300_000 });
  return { ms: performance.now() - t, ok: r.exitCode === 0, summary: r.stdout.split('\n')[0] ?? '' };
}

/** the system services the bench started, stopped again (those already running stay) */
async function stopStarted(before: { amqp: boolean; pg: boolean }, say: (line: string) => void) {
  if (!before.amqp && (await listening(PEER_PORTS.amqp))) {
    await execa('rabbitmqctl', ['-q', 'stop'], { reject: false });
    say('stopped the system RabbitMQ the peer runs used');
  }
  if (!before.pg && (await listening(PEER_PORTS.pg))) {
    const versions = fs.existsSync('/etc/postgresql') ? fs.readdirSync('/etc/postgresql') : [];
    for (const v of versions)
      await execa('pg_ctlcluster', ['--skip-systemctl-redirect', v, 'main', 'stop'], { reject: false });
    say('stopped the system PostgreSQL the peer runs used');
  }
}
