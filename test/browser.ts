/**
 * Headless Chromium for the --html tests: Debian's `chromium` package driven by playwright-core
 * (never a downloaded browser), offline flags, and a fresh profile in a temp dir per launch.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.MQLAB_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '.mqlab-test', 'screenshots');

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-quic',
  '--disable-component-update',
  '--disable-sync',
];

export interface OpenBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** a persistent context needs its own --user-data-dir: a fresh temp dir, removed on close */
export async function openBrowser(): Promise<OpenBrowser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (as root), or set MQLAB_CHROMIUM`);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
    offline: true,
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

export type { Browser };
