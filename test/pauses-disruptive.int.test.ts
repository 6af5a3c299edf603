/** test/pauses.int.test.ts for the labs that stop a service (db-outage, broker-restart): their own set when CI has one */
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CONFIG, upAgainAfterFailure, useNamespace } from './helpers.js';
import { openBrowser, type OpenBrowser } from './browser.js';
import { everyPause } from './pauses.js';
import { registry } from '../labs/registry.js';

const n = useNamespace(import.meta.url);
upAgainAfterFailure();

const pausing = registry.filter((l) => Object.keys(l.checkpoints).length > 0 && l.disruptive);

describe('every pause of the labs that stop a service', () => {
  let browser: OpenBrowser;
  let page: Page;
  beforeAll(async () => {
    browser = await openBrowser({ loopback: true });
    page = await browser.context.newPage();
  });
  afterAll(async () => browser?.close());

  for (const lab of pausing)
    it(
      lab.name,
      async (ctx) => {
        const missing = await lab.requires?.(CONFIG);
        if (missing) return ctx.skip(`${lab.name} ${missing}`);
        await everyPause(page, lab.name, n.namespace);
      },
      300_000,
    );
});
