/**
 * The chroot backend's private Debian root of a line (lines.ts): Debian `unstable` with
 * rabbitmq-server 4.3.x and postgresql-18, or Debian 13 (trixie) with 4.0.x and postgresql-17, from
 * the archive this machine's apt already uses. Built once per machine and suite into a cache
 * (/var/cache/mqlab/debian-<suite>-root, or MQLAB_CACHE), then copied (cp -a --reflink=auto) to
 * HOME/root. Both are built in a temporary folder and renamed when complete, so an interrupted setup
 * is redone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { EnvError } from '../core/errors.js';
import { withProgress } from './progress.js';
import { cacheDir, ensureProgram, oneInstallAtATime } from './apt.js';
import type { RootLine } from './lines.js';
import { isLink } from './links.js';

const READY = '.mqlab-root';
/** the suite a root was built from (a root without it is from before lines: sid) */
const SUITE = '.mqlab-suite';
const noExpiry = ['-o', 'Acquire::Check-Valid-Until=false'];

export const rootDir = (home: string) => path.join(home, 'root');
const cachedRoot = (line: RootLine, env: NodeJS.ProcessEnv) => path.join(cacheDir(env), `debian-${line.suite}-root`);

/** the Debian archive apt is configured with here (MQLAB_DEBIAN_MIRROR overrides) */
function debianMirror(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MQLAB_DEBIAN_MIRROR) return env.MQLAB_DEBIAN_MIRROR;
  const files = [
    '/etc/apt/sources.list',
    ...listDir('/etc/apt/sources.list.d').filter((f) => /\.(list|sources)$/.test(f)),
  ];
  const archive = archiveIn(files.map((f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '')));
  if (archive) return archive;
  throw new EnvError(
    'no Debian archive in the apt sources of this machine',
    'set MQLAB_DEBIAN_MIRROR to a Debian archive URL, or use --backend system or docker',
  );
}

/** the first Debian archive URI (not -security) in apt source files, one-line or deb822 */
export function archiveIn(texts: string[]): string | null {
  for (const text of texts) {
    const uris = [
      ...text.matchAll(/^\s*URIs:\s*(\S+)/gim),
      ...text.matchAll(/^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)/gim),
    ].flatMap((m) => (m[1] === undefined ? [] : [m[1]]));
    const archive = uris.find((u) => /\/debian\/?$/.test(u) && !/security/.test(u));
    if (archive) return archive;
  }
  return null;
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

const rootReady = (root: string) => fs.existsSync(path.join(root, READY));

/** the Debian suite a ready root was built from, or null when there is none */
function rootSuite(root: string): string | null {
  if (!rootReady(root)) return null;
  try {
    return fs.readFileSync(path.join(root, SUITE), 'utf8').trim();
  } catch {
    return 'sid';
  }
}

/** why this machine cannot run the chroot backend, or null */
export async function chrootRefusal(): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'the chroot backend needs root';
  const r = await execa('chroot', ['/', '/bin/true'], { reject: false, timeout: 5000 }).catch(() => null);
  return r?.exitCode === 0 ? null : 'chroot is refused here (no CAP_SYS_CHROOT?)';
}

/** make HOME/root ready: from the machine's cache, building the cache first when needed */
export async function ensureRoot(
  home: string,
  line: RootLine,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const root = rootDir(home);
  const suite = rootSuite(root);
  if (suite === line.suite) return root;
  if (suite !== null)
    throw new EnvError(
      `${root} is a Debian ${suite} root, not the ${line.release} root of line ${line.line}`,
      'run `mqlab down --volumes` first, or start the line in a data folder of its own (MQLAB_HOME)',
    );
  const cached = cachedRoot(line, env);
  if (!rootReady(cached))
    await oneInstallAtATime('root', `building the ${line.release} root`, log, async () => {
      if (!rootReady(cached)) await buildRoot(cached, line, log, env); // else another up built it meanwhile
    });
  const tmp = `${root}.tmp`;
  await removeTree(tmp);
  await removeTree(root);
  await withProgress(`copying the Debian root from ${cached}`, log, () =>
    execa('cp', ['-a', '--reflink=auto', cached, tmp], { all: true }),
  );
  fs.renameSync(tmp, root);
  return root;
}

async function buildRoot(
  target: string,
  line: RootLine,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  await ensureDebootstrap(log);
  const mirror = debianMirror(env);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const tmp = `${target}.tmp`;
  // an interrupted build resumes after a complete debootstrap (apt-get finishes what it began), else starts over
  const based = path.join(tmp, '.mqlab-debootstrap-done');
  if (!fs.existsSync(based)) await removeTree(tmp);
  log(
    `building a ${line.release} root with ${line.packages.join(' and ')} from ${mirror} (once per machine, 2–10 min)`,
  );
  const step = (what: string, file: string, args: string[]) =>
    withProgress(what, log, () =>
      execa(file, args, { all: true, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }),
    );
  if (!fs.existsSync(based)) {
    await step('debootstrap (download and unpack the base system)', 'debootstrap', [
      '--variant=minbase',
      line.suite,
      tmp,
      mirror,
    ]);
    // keep package scripts from starting services inside the root
    fs.writeFileSync(path.join(tmp, 'usr/sbin/policy-rc.d'), '#!/bin/sh\nexit 101\n', { mode: 0o755 });
    fs.writeFileSync(based, '');
  }
  await step('apt-get update in the root', 'chroot', [tmp, 'apt-get', ...noExpiry, 'update']);
  // postgresql-common's scripts run systemd-tmpfiles, which needs /proc: mounted for the install only
  await execa('mount', ['-t', 'proc', 'proc', path.join(tmp, 'proc')]);
  try {
    await step(`installing ${line.packages.join(', ')}`, 'chroot', [
      tmp,
      'sh',
      '-c',
      `dpkg --configure -a && apt-get ${noExpiry.join(' ')} install -y --no-install-recommends ${line.packages.join(' ')}`,
    ]);
  } finally {
    await execa('umount', ['-l', path.join(tmp, 'proc')], { reject: false });
  }
  await execa('chroot', [tmp, 'apt-get', 'clean'], { reject: false });
  fs.rmSync(based);
  const q = await execa('chroot', [tmp, 'dpkg-query', '-W', '-f', '${Package} ${Version}\n', ...line.packages]);
  fs.writeFileSync(path.join(tmp, SUITE), line.suite + '\n');
  fs.writeFileSync(path.join(tmp, READY), q.stdout.trim().split('\n').join(', ') + '\n');
  await removeTree(target);
  fs.renameSync(tmp, target);
  log(`Debian root ready (${rootVersions(target)}), cached in ${target}`);
}

/** delete a root (or a half-built one): never through a /proc left mounted in it, never across file systems */
export async function removeTree(dir: string): Promise<void> {
  if (isLink(dir)) return fs.unlinkSync(dir); // the link itself, never through it
  if (!fs.existsSync(dir)) return;
  const proc = path.join(dir, 'proc');
  // a proc that is a link (to the host's /proc, say) is not the root's: umount nothing through it
  if (!isLink(proc)) await execa('umount', ['-l', proc], { reject: false }).catch(() => {});
  await execa('rm', ['-rf', '--one-file-system', dir]);
}

const ensureDebootstrap = (log: (line: string) => void) =>
  ensureProgram(
    { command: 'debootstrap', versionArgs: ['--version'], pkg: 'debootstrap', orElse: ', or use --backend system' },
    log,
  );
