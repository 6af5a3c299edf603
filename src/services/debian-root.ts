/**
 * The chroot backend's private Debian root: Debian `unstable` with rabbitmq-server (4.3.x) and
 * postgresql-18, from the archive this machine's apt already uses. Built once per machine into a
 * cache (/var/cache/mqlab, or MQLAB_CACHE), then copied (cp -a --reflink=auto) to HOME/root. Both
 * are built in a temporary folder and renamed when complete, so an interrupted setup is redone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { CHROOT } from '../defaults.js';
import { EnvError } from '../errors.js';
import { withProgress } from './progress.js';

const READY = '.mqlab-root';
const noExpiry = ['-o', 'Acquire::Check-Valid-Until=false'];

export const rootDir = (home: string) => path.join(home, 'root');
export const cacheDir = (env: NodeJS.ProcessEnv = process.env) => path.resolve(env.MQLAB_CACHE || '/var/cache/mqlab');
const cachedRoot = (env: NodeJS.ProcessEnv) => path.join(cacheDir(env), `debian-${CHROOT.suite}-root`);

/** the Debian archive apt is configured with here (MQLAB_DEBIAN_MIRROR overrides) */
export function debianMirror(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MQLAB_DEBIAN_MIRROR) return env.MQLAB_DEBIAN_MIRROR;
  const files = ['/etc/apt/sources.list', ...listDir('/etc/apt/sources.list.d').filter((f) => /\.(list|sources)$/.test(f))];
  for (const file of files) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const uris = [...text.matchAll(/^\s*URIs:\s*(\S+)/gim), ...text.matchAll(/^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)/gim)].map((m) => m[1]);
    const archive = uris.find((u) => /debian\/?$/.test(u) && !/security|ports/.test(u));
    if (archive) return archive;
  }
  throw new EnvError('no Debian archive in the apt sources of this machine', 'set MQLAB_DEBIAN_MIRROR to a Debian archive URL, or use --backend system or docker');
}

const listDir = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => path.join(dir, f)) : []);

/** "rabbitmq-server 4.3.6-1, postgresql-18 18.6-1" from the root's dpkg database */
export function rootVersions(root: string): string {
  try {
    return fs.readFileSync(path.join(root, READY), 'utf8').trim();
  } catch {
    return '';
  }
}

export const rootReady = (root: string) => fs.existsSync(path.join(root, READY));

/** why this machine cannot run the chroot backend, or null */
export async function chrootRefusal(): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'the chroot backend needs root';
  const r = await execa('chroot', ['/', '/bin/true'], { reject: false, timeout: 5000 }).catch(() => null);
  return r?.exitCode === 0 ? null : 'chroot is refused here (no CAP_SYS_CHROOT?)';
}

/** make HOME/root ready: from the machine's cache, building the cache first when needed */
export async function ensureRoot(home: string, log: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const root = rootDir(home);
  if (rootReady(root)) return root;
  const cached = cachedRoot(env);
  if (!rootReady(cached)) await buildRoot(cached, log, env);
  const tmp = `${root}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.rmSync(root, { recursive: true, force: true });
  await withProgress(`copying the Debian root from ${cached}`, log, () => execa('cp', ['-a', '--reflink=auto', cached, tmp], { all: true }));
  fs.renameSync(tmp, root);
  return root;
}

async function buildRoot(target: string, log: (line: string) => void, env: NodeJS.ProcessEnv): Promise<void> {
  await ensureDebootstrap(log);
  const mirror = debianMirror(env);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const tmp = `${target}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true }); // an interrupted build is redone from scratch
  log(`building a Debian ${CHROOT.suite} root with ${CHROOT.packages.join(' and ')} from ${mirror} (once per machine, ~2 min)`);
  const step = (what: string, file: string, args: string[], extra: NodeJS.ProcessEnv = {}) =>
    withProgress(what, log, () => execa(file, args, { all: true, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', ...extra } }));
  await step('debootstrap (download and unpack the base system)', 'debootstrap', ['--variant=minbase', CHROOT.suite, tmp, mirror]);
  // keep package scripts from starting services inside the root
  fs.writeFileSync(path.join(tmp, 'usr/sbin/policy-rc.d'), '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  await step('apt-get update in the root', 'chroot', [tmp, 'apt-get', ...noExpiry, 'update']);
  await step(`installing ${CHROOT.packages.join(', ')}`, 'chroot', [tmp, 'apt-get', ...noExpiry, 'install', '-y', '--no-install-recommends', ...CHROOT.packages]);
  await execa('chroot', [tmp, 'apt-get', 'clean'], { reject: false });
  const q = await execa('chroot', [tmp, 'dpkg-query', '-W', '-f', '${Package} ${Version}\n', ...CHROOT.packages]);
  fs.writeFileSync(path.join(tmp, READY), q.stdout.trim().split('\n').join(', ') + '\n');
  fs.rmSync(target, { recursive: true, force: true });
  fs.renameSync(tmp, target);
  log(`Debian root ready (${rootVersions(target)}), cached in ${target}`);
}

async function ensureDebootstrap(log: (line: string) => void): Promise<void> {
  const have = await execa('debootstrap', ['--version'], { reject: false }).catch(() => null);
  if (have?.exitCode === 0) return;
  if (process.getuid?.() !== 0) throw new EnvError('debootstrap is not installed', 'install it (sudo apt-get install debootstrap), or use --backend system');
  const apt = await execa('apt-get', ['--version'], { reject: false }).catch(() => null);
  if (apt?.exitCode !== 0) throw new EnvError('debootstrap is not installed and there is no apt-get here', 'install debootstrap, or use --backend system or docker');
  await withProgress('installing debootstrap with apt-get', log, () =>
    execa('apt-get', ['-o', 'DPkg::Lock::Timeout=120', 'install', '-y', '-q', '--no-install-recommends', 'debootstrap'], { all: true, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }),
  );
}
