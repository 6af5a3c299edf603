/**
 * --html in a real browser: real lab runs (consumer-crash: a crash and child processes; retry:
 * journeys through a delay queue), opened in Debian's headless Chromium. The page must show what
 * the --json document of the same run says, and a FAIL when the run really failed.
 * The broken run: a broker policy (message-ttl 1 ms, higher priority) on retry's delay queue, set
 * before the run as an operator could — the retries come back at once and shortestRetryGapMs fails.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { mqlab, useNamespace, useServices } from './helpers.js';
import { openBrowser, screenshot, type OpenBrowser } from './browser.js';
import { firstLab, type EventDoc } from './report.js';
import { must } from '../src/core/must.js';

const NS = useNamespace(import.meta.url).namespace;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-html-'));

/** run a lab with --json and --html; the JSON is the lab's part of the document */
async function runWithHtml(lab: string) {
  const file = path.join(dir, `${lab}.html`);
  const r = await mqlab([lab, '--namespace', NS, '--json', '--html', file]);
  expect(r.stdout.trim().startsWith('{'), r.stdout + r.stderr).toBe(true);
  return { code: r.code, json: firstLab(r.stdout), file };
}

async function open(page: Page, file: string) {
  await page.goto('file://' + file);
  return {
    lanes: await page.locator('svg.timeline g.lane').evaluateAll((els) => els.map((e) => e.getAttribute('data-lane'))),
    marks: await page.locator('svg.timeline g.ev').count(),
    verdict: await page.locator('h1 .badge').getAttribute('data-verdict'),
    failedChecks: await page
      .locator('table.checks tr.fail')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-check'))),
    passedChecks: await page.locator('table.checks tr.pass').count(),
  };
}

describe('--html timeline in headless Chromium', () => {
  const s = useServices();
  let browser: OpenBrowser;
  let page: Page;
  beforeAll(async () => {
    browser = await openBrowser();
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('consumer-crash: a lane per process, every event a mark, the crash marked, the checks passed', async () => {
    const { code, json, file } = await runWithHtml('consumer-crash');
    expect(code, JSON.stringify(json.checks)).toBe(0);
    const seen = await open(page, file);
    expect(seen.lanes).toEqual(expect.arrayContaining(['producer', 'consumer-run1', 'consumer-run2', 'checkpoint']));
    expect(seen.lanes.at(-1)).toBe('checkpoint');
    expect(seen.marks).toBe(json.events.length);
    expect(seen.verdict).toBe('PASS');
    expect(seen.passedChecks).toBe(json.checks.length);
    // the crash: the child's exit event (137) is a crash mark in consumer-run1's lane, with a line across the lanes
    const crash = page.locator('g.ev[data-kind="crash"]');
    expect(await crash.count()).toBe(1);
    expect(await crash.getAttribute('data-lane')).toBe('consumer-run1');
    expect(await page.locator('.crash-line text').textContent()).toBe('✖ crash: consumer-run1 exit 137');
    // hovering shows the event's key=value fields
    await crash.hover();
    expect(await page.locator('#tip').isVisible()).toBe(true);
    expect(await page.locator('#tip').textContent()).toMatch(/exitCode=137\nsignal=SIGKILL/);
    // the queue-depth chart draws the lab's queue, sampled during the run (3 ready after the crash); a
    // line needs two samples (every 250 ms: a fast run on a quiet machine took 3)
    const depths = must(json.depths, 'the sampled depths');
    expect(depths.samples.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...depths.samples.map((x) => x.ready[0] ?? NaN))).toBe(3);
    expect(await page.locator('path.depth[data-kind="ready"]').count()).toBe(depths.queues.length);
    expect(await page.locator('path.depth[data-kind="messages"]').count()).toBe(depths.queues.length);
    await page.mouse.move(0, 0);
    await screenshot(page, 'consumer-crash.png');
  });

  it('retry: journeys from producer to consumer, the delay queue’s waits between attempts, poison into the dlq', async () => {
    const { code, json, file } = await runWithHtml('retry');
    expect(code, JSON.stringify(json.checks)).toBe(0);
    const seen = await open(page, file);
    // the producer's publish is its first event: its lane comes first (no delivery before its publish)
    expect(seen.lanes).toEqual(['producer', 'consumer', 'dlq', 'checkpoint']);
    expect(seen.marks).toBe(json.events.length);
    // transient: confirmed, then three receptions with two waits of the delay queue's TTL between them
    expect(await page.locator('path.journey[data-message="transient"]').count()).toBeGreaterThanOrEqual(3);
    // two waits of at least the delay queue's 500 ms TTL, measured as the check measures them: delivery → delivery
    // on the wait's path always (data-wait); as a label where the span is wide enough for it (a longer
    // run on a loaded machine draws the same wait narrower)
    const onPaths = await page
      .locator('path.journey[data-wait]')
      .evaluateAll((ps) => ps.map((p) => p.getAttribute('data-wait')));
    const waits = onPaths
      .map((t) => /^(\d+) ms delivery → delivery$/.exec(t ?? '')?.[1])
      .filter(Boolean)
      .map(Number);
    expect(waits, JSON.stringify(onPaths)).toHaveLength(2);
    expect(Math.min(...waits)).toBe(json.checks.find((c) => c.name === 'shortestRetryGapMs')?.actual);
    const labels = await page.locator('text.wait').allTextContents();
    for (const label of labels.filter((t) => t.includes('delivery → delivery')))
      expect(waits.map((w) => `${w} ms delivery → delivery`)).toContainEqual(label.replace(/^transient: /, ''));
    // poison ends in the dlq lane: received there when it arrived, acked at the end
    expect(await page.locator('g.ev[data-lane="dlq"][data-message="poison"]').count()).toBe(2);
    // no delivery before its publish: each message's first receipt comes after its publish
    const at = (e: EventDoc | undefined) => Date.parse(e?.timestamp ?? '');
    for (const id of ['healthy', 'transient', 'poison']) {
      const published = json.events.find((e) => e.messageId === id && e.status === 'published');
      const received = json.events.find((e) => e.messageId === id && e.status === 'received');
      expect(at(published)).toBeLessThanOrEqual(at(received));
    }
    await screenshot(page, 'retry.png');
  });

  it('a really failed run shows FAIL on the page, for the check that failed', async () => {
    const policy = {
      name: `${NS}-fault-delay-ttl`,
      pattern: `^${NS}\\.me12\\.retry\\.delay$`,
      definition: { 'message-ttl': 1 },
      applyTo: 'queues' as const,
      priority: 999,
    };
    await s.mgmt.putPolicy(policy);
    try {
      const { code, json, file } = await runWithHtml('retry');
      expect(code).toBe(1);
      const seen = await open(page, file);
      expect(seen.verdict).toBe('FAIL');
      expect(seen.failedChecks).toEqual(json.checks.filter((c) => !c.pass).map((c) => c.name));
      expect(seen.failedChecks).toContain('shortestRetryGapMs');
      expect(await page.locator('tr.fail[data-check="shortestRetryGapMs"]').isVisible()).toBe(true);
      expect(await page.locator('tr.fail[data-check="shortestRetryGapMs"]').innerText()).toMatch(
        /FAIL\s+shortestRetryGapMs\s+>=500\s+\d+/,
      );
      await screenshot(page, 'retry-broken.png');
    } finally {
      await s.mgmt.deletePolicy(policy.name);
    }
  });

  it('db-outage: the outage is drawn, every event a mark (the other labs’ pages: reports.int’s `mqlab all --html`)', async () => {
    const { code, json, file } = await runWithHtml('db-outage');
    expect(code, JSON.stringify(json.checks)).toBe(0);
    const seen = await open(page, file);
    expect(seen.verdict).toBe('PASS');
    expect(seen.marks).toBe(json.events.length);
    // the outage itself: PostgreSQL stopped, then ready again, as two marks on the services' lane
    const outage = json.events.filter((e) => e.source === 'services');
    expect(outage.map((e) => e.status)).toEqual(['stopped', 'ready']);
    for (const [i, e] of json.events.entries())
      if (e.source === 'services') expect(await page.locator(`g.ev[data-i="${i}"]`).count()).toBe(1);
    expect(seen.passedChecks).toBe(json.checks.length);
  }, 240_000);
});
