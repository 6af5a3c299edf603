/**
 * The Chromium the --html browser test drives (test/browser.ts): Debian's `chromium` package at
 * /usr/bin/chromium, or MQLAB_CHROMIUM. `npm test` installs the package when it is missing, as
 * `mqlab up` installs debootstrap: as root with apt-get, with a progress line; where it cannot (not
 * root, no apt-get) it says so in one line and the browser test fails with that line.
 */
import fs from 'node:fs';
import { execa } from 'execa';
import { withProgress } from '../src/services/progress.js';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';
export const chromiumPath = (env: NodeJS.ProcessEnv = process.env) => env.MQLAB_CHROMIUM || DEFAULT_CHROMIUM;

export interface ChromiumHere {
  path: string;
  /** MQLAB_CHROMIUM names the binary */
  custom: boolean;
  exists: boolean;
  root: boolean;
  apt: boolean;
}

export type ChromiumPlan = { kind: 'present' } | { kind: 'install' } | { kind: 'cannot'; line: string };

const elsewhere = 'or set MQLAB_CHROMIUM to a Chromium binary';

/** what to do about the browser on this machine */
export function chromiumPlan(h: ChromiumHere): ChromiumPlan {
  if (h.exists) return { kind: 'present' };
  const missing = `no Chromium at ${h.path}${h.custom ? ' (MQLAB_CHROMIUM)' : ''}`;
  if (!h.apt)
    return {
      kind: 'cannot',
      line: `${missing} and no apt-get here to install Debian's chromium: install Chromium and set MQLAB_CHROMIUM to its binary`,
    };
  if (!h.root)
    return {
      kind: 'cannot',
      line: `${missing}, and installing it needs root: run \`sudo apt-get install -y chromium\` once, ${elsewhere}`,
    };
  return { kind: 'install' };
}

/** the one line for a Chromium still missing after apt-get installed the package */
export const stillMissing = (path: string) =>
  `apt-get installed chromium, but there is no ${path}: unset MQLAB_CHROMIUM to use ${DEFAULT_CHROMIUM}, ${elsewhere}`;

async function here(env: NodeJS.ProcessEnv): Promise<ChromiumHere> {
  const path = chromiumPath(env);
  const apt = await execa('apt-get', ['--version'], { reject: false }).catch(() => null);
  return {
    path,
    custom: Boolean(env.MQLAB_CHROMIUM),
    exists: fs.existsSync(path),
    root: process.getuid?.() === 0,
    apt: apt?.exitCode === 0,
  };
}

/**
 * Make the browser present: null when it is there (or was installed now), else the one line saying
 * why it is not. apt-get waits for a dpkg lock another install holds; with no package lists (a
 * fresh container) it runs apt-get update first.
 */
export async function ensureChromium(
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | null> {
  const h = await here(env);
  const plan = chromiumPlan(h);
  if (plan.kind === 'present') return null;
  if (plan.kind === 'cannot') return plan.line;
  const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    withProgress(
      `${h.path} is missing: installing Debian's chromium with apt-get (once per machine, ~1–3 min)`,
      log,
      () =>
        execa('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '-q', 'chromium'], {
          all: true,
          env: aptEnv,
        }),
    );
  try {
    await install().catch(async () => {
      await withProgress('apt-get update (the package lists)', log, () =>
        execa('apt-get', ['-q', 'update'], { all: true, env: aptEnv }),
      );
      await install();
    });
  } catch (err) {
    return `installing chromium failed: ${(err as Error).message}; run \`apt-get install -y chromium\` as root, ${elsewhere}`;
  }
  return fs.existsSync(h.path) ? null : stillMissing(h.path);
}
