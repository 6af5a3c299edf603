/**
 * Headless Chromium for the --html tests: Debian's `chromium` package driven by playwright-core
 * (never a downloaded browser), offline flags, and a fresh profile in a temp dir per launch.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { chromiumPath, ensureChromium } from './chromium.js';

export const CHROMIUM = chromiumPath();
export const SCREENSHOTS = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  '..',
  '.mqlab-test',
  'screenshots',
);

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

/**
 * a persistent context needs its own --user-data-dir: a fresh temp dir, removed on close.
 * `loopback`: the page may reach 127.0.0.1 (a --live server) and nothing else; otherwise fully offline.
 */
export async function openBrowser({ loopback = false } = {}): Promise<OpenBrowser> {
  // test/global-setup.ts has installed it when it could; this says why not (or installs it, run alone)
  const missing = await ensureChromium((line) =>
    process.stderr.write(`${line}
`),
  );
  if (missing) throw new Error(missing);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
    offline: !loopback,
  });
  if (loopback)
    await context.route('**/*', (route) =>
      /^(http:\/\/127\.0\.0\.1[:/]|file:|data:)/.test(route.request().url()) ? route.continue() : route.abort(),
    );
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** a full-page screenshot of `page` into .mqlab-test/screenshots/NAME (for a person to look at), not empty */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, name);
  await page.screenshot({ path: file, fullPage: true });
  if (fs.statSync(file).size < 10_000) throw new Error(`${file}: the screenshot is nearly empty`);
  return file;
}

export type { Browser };
