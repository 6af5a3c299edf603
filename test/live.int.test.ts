/**
 * The bench in Debian's headless Chromium, against real runs: `--live --step` serves the run on
 * 127.0.0.1, the page receives its events as they happen, a queue's counts change, Continue
 * (button and Enter) releases each checkpoint and the run ends PASS, after which the server is
 * gone. The player: ← → space and #step=N on a recorded --html page. The projector layout:
 * screenshots at 1280×720 and 1920×1080 with the smallest text at least 18 px (the graph's: 16 px below
 * 1600 px wide, where a wide graph is drawn smaller to keep the step panel beside it) and no horizontal scroll.
 * Bad input: a port in use, a bad --port; Ctrl-C leaves no listener.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { mqlab, startMqlab, useNamespace, useServices } from './helpers.js';
import { openBrowser, SCREENSHOTS, type OpenBrowser } from './browser.js';
import { registry } from '../labs/registry.js';

const n = useNamespace(import.meta.url);
const NS = n.namespace;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-live-'));

/** the runs a test started: one a failed test left paused is stopped (Ctrl-C) before the next test */
const started: ReturnType<typeof startMqlab>[] = [];

/** start `mqlab …` and read the live page's address from its stderr */
async function startLive(args: string[]) {
  const run = startMqlab(args);
  started.push(run);
  let stderr = '';
  run.child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  await run.stderrShows('live page at http://127.0.0.1:', 60_000);
  await run.stderrShows(' (127.0.0.1 only', 5_000);
  // the address with the run's token (src/page/loopback.ts): the page it opens holds the token's cookie
  const url = /live page at (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32})/.exec(stderr)?.[1] ?? '';
  return { ...run, url, port: Number(new URL(url).port), stderr: () => stderr };
}

/** can anything connect to 127.0.0.1:port? */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/** GET with a chosen Host header: the status code */
const statusWithHost = (port: number, host: string) =>
  new Promise<number>((resolve, reject) => {
    http
      .get(
        { host: '127.0.0.1', port, path: '/', headers: { host } },
        (res) => (res.resume(), resolve(res.statusCode ?? 0)),
      )
      .on('error', reject);
  });

/** the smallest font size of visible text outside SVG, and SVG text as drawn (its size × the SVG's scale) */
async function smallestText(page: Page) {
  return page.evaluate(() => {
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      return (
        r.width > 0 &&
        r.height > 0 &&
        getComputedStyle(el).visibility !== 'hidden' &&
        !el.closest('details:not([open]) > :not(summary)')
      );
    };
    let html = Infinity;
    let graph = Infinity;
    for (const el of document.querySelectorAll('body *')) {
      if (el.closest('svg') || !visible(el)) continue;
      const own = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== '');
      if (own) html = Math.min(html, parseFloat(getComputedStyle(el).fontSize));
    }
    for (const t of document.querySelectorAll('svg.graph text')) {
      if (!t.textContent.trim() || !visible(t)) continue;
      const m = (t as SVGGraphicsElement).getScreenCTM();
      const scale = m ? Math.hypot(m.a, m.b) : 1; // rotated labels too
      graph = Math.min(graph, parseFloat(getComputedStyle(t).fontSize) * scale);
    }
    return { html, graph, overflow: document.documentElement.scrollWidth - innerWidth };
  });
}

/** the graph's boxes whose name is drawn wider than the box (their ids): none */
const namesOutside = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('svg.graph .g-node')]
      .filter((g) => {
        const box = g.querySelector('rect')!.getBBox();
        const name = (g.querySelector('.g-name') as SVGGraphicsElement).getBBox();
        return name.x + name.width > box.x + box.width;
      })
      .map((g) => g.getAttribute('data-node')),
  );

/** the graph's nodes whose name is not drawn in full (its lines joined are not the node's name): none */
const namesCut = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('svg.graph .g-node')]
      .filter((g) => {
        const drawn = [...g.querySelector('.g-name')!.childNodes]
          .filter((c) => c.nodeName !== 'title')
          .map((c) => c.textContent)
          .join('');
        return drawn !== g.getAttribute('data-node')!.slice(2);
      })
      .map((g) => g.getAttribute('data-node')),
  );

/**
 * the graph's edge labels that overlap something, as drawn on screen: another text of the graph (a
 * label, a name, a note, a count), a node's box, or an edge's line (points 2 px apart along every path)
 */
const labelsOverlapping = (page: Page) =>
  page.evaluate(() => {
    const svg = document.querySelector('svg.graph')!;
    const box = (el: Element) => el.getBoundingClientRect();
    const meet = (a: DOMRect, b: DOMRect) =>
      a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
    const labels = [...svg.querySelectorAll('.g-edge-label')];
    const others = [...svg.querySelectorAll('.g-node text, .g-node rect, .g-edge-label')];
    const m = (svg as SVGSVGElement).getScreenCTM()!;
    const points = [...svg.querySelectorAll<SVGPathElement>('path.g-edge')].flatMap((p) => {
      const out: { x: number; y: number; edge: string }[] = [];
      for (let d = 0; d <= p.getTotalLength(); d += 2) {
        const q = p.getPointAtLength(d);
        out.push({
          x: m.a * q.x + m.c * q.y + m.e,
          y: m.b * q.x + m.d * q.y + m.f,
          edge: `${p.dataset.from}>${p.dataset.to}`,
        });
      }
      return out;
    });
    const found: string[] = [];
    for (const l of labels) {
      const r = box(l);
      for (const o of others)
        if (o !== l && meet(r, box(o)) && !(o.closest('.g-node') && o.tagName === 'text' && !o.textContent?.trim()))
          found.push(`${l.textContent} × ${o.textContent || o.closest('.g-node')?.getAttribute('data-node')}`);
      const hit = points.find((q) => q.x > r.left + 1 && q.x < r.right - 1 && q.y > r.top + 1 && q.y < r.bottom - 1);
      if (hit) found.push(`${l.textContent} × edge ${hit.edge}`);
    }
    return found;
  });

/** how far down the viewport the pause's essentials end: what it is, what it means, and Continue */
const essentials = (page: Page) =>
  page.evaluate(() => {
    const bottom = (sel: string) => Math.round(document.querySelector(sel)!.getBoundingClientRect().bottom);
    return {
      step: Math.max(bottom('#step-title'), bottom('#step-desc'), bottom('#bindings-now')),
      continue: bottom('#continue'),
      height: innerHeight,
    };
  });

/** the queues whose policy lines are drawn wider than their box (their ids): none */
const policyOutside = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('svg.graph .g-queue')]
      .filter((g) => {
        const box = g.querySelector('rect')!.getBBox();
        return [...g.querySelectorAll('[data-policy-line]')].some((t) => {
          const b = (t as SVGGraphicsElement).getBBox();
          return b.width > 0 && b.x + b.width > box.x + box.width;
        });
      })
      .map((g) => g.getAttribute('data-node')),
  );

/**
 * in the page: a token's centre each frame while it moves along an edge (for 4 s), with how far it
 * is from that edge's path (the nearest of points 0.5 px apart along it)
 */
function trackToken(id: string): Promise<{ edge: string; off: number }[]> {
  return new Promise((resolve) => {
    const out: { edge: string; off: number }[] = [];
    const t0 = performance.now();
    const frame = () => {
      const g = document.querySelector<SVGGElement>(`svg.graph .token[data-token="${id}"]`);
      if (g?.dataset.moving === 'path' && g.dataset.edge) {
        const m = /translate\(([-\d.e]+),([-\d.e]+)\)/.exec(g.getAttribute('transform') ?? '');
        const w = Number(g.querySelector('rect')?.getAttribute('width'));
        const [from, to] = g.dataset.edge.split('>');
        const path = document.querySelector<SVGPathElement>(
          `path.g-edge[data-from="${CSS.escape(from!)}"][data-to="${CSS.escape(to!)}"]`,
        )!;
        const [cx, cy] = [Number(m?.[1]) + w / 2, Number(m?.[2]) + 14];
        let off = Infinity;
        for (let d = 0; d <= path.getTotalLength(); d += 0.5) {
          const p = path.getPointAtLength(d);
          off = Math.min(off, Math.hypot(p.x - cx, p.y - cy));
        }
        out.push({ edge: g.dataset.edge, off });
      }
      if (performance.now() - t0 < 4000) requestAnimationFrame(frame);
      else resolve(out);
    };
    requestAnimationFrame(frame);
  });
}

/**
 * a screenshot at a projector's size into .mqlab-test/screenshots/NAME, checked readable: text
 * outside the graph at least 18 px, the graph's text as drawn at least 18 px (16 px below 1600 px
 * wide: graph-svg.ts FLOOR_SCALE), no horizontal scroll
 */
async function shoot(page: Page, name: string, size: { width: number; height: number }) {
  await page.setViewportSize(size);
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, name);
  await page.screenshot({ path: file });
  expect(fs.statSync(file).size).toBeGreaterThan(10_000);
  const seen = await smallestText(page);
  expect(seen.html, `${name}: ${JSON.stringify(seen)}`).toBeGreaterThanOrEqual(18);
  expect(seen.graph, `${name}: ${JSON.stringify(seen)}`).toBeGreaterThanOrEqual(size.width < 1600 ? 16 : 18);
  expect(seen.overflow, `${name}: ${JSON.stringify(seen)}`).toBeLessThanOrEqual(0);
  return seen;
}

describe('the bench: --live and the player in headless Chromium', () => {
  const services = useServices();
  let browser: OpenBrowser;
  let page: Page;
  beforeAll(async () => {
    browser = await openBrowser({ loopback: true });
    page = await browser.context.newPage();
  });
  afterEach(async () => {
    for (const run of started.splice(0))
      if (run.child.exitCode === null && run.child.signalCode === null) {
        run.child.kill('SIGINT');
        await run.exited(30_000).catch(() => {});
      }
  });
  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('--live --step: events arrive, counts change, Continue releases every checkpoint, PASS, the server closes', async () => {
    const run = await startLive(['retry-dlq', '--namespace', NS, '--live', '--port', '0', '--step']);
    expect(await statusWithHost(run.port, `evil.example:${run.port}`)).toBe(403); // DNS rebinding
    // the run waits for the page: it starts when the page connects
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(run.url);
    // a second page, opened once the first holds the run's control (the first to connect holds it):
    // at the first pause, when the run (which waited for a page) has begun
    let viewer: Page | null = null;
    const counts = new Set<string>();
    let released = 0;
    let shotMidRun = false;
    for (let i = 0; i < 40 && run.child.exitCode === null; i++) {
      const button = page.locator('#continue');
      const paused = await button.waitFor({ state: 'visible', timeout: 60_000 }).then(
        () => true,
        () => false,
      );
      if (!paused) break;
      counts.add(await page.locator('#counts').innerText());
      const title = await page.locator('#step-title').innerText();
      expect(title).toMatch(/^pause: /);
      if (!viewer) {
        viewer = await browser.context.newPage();
        await viewer.goto(run.url);
        await viewer.locator('#viewer-note').waitFor({ state: 'visible', timeout: 30_000 });
      }
      // the second page watches: it sees the pause but cannot release it
      expect(await viewer.locator('#continue').isVisible()).toBe(false);
      if (!shotMidRun && /before-retry/.test(title)) {
        await page.waitForTimeout(1200); // the management API's counts catch up while paused
        await shoot(page, 'live-retry-dlq-1280.png', { width: 1280, height: 720 });
        // at 1280×720 the pause's meaning and Continue are above the fold (the graph may go on below it)
        const fold = await essentials(page);
        for (const [part, y] of Object.entries(fold))
          expect(y, `${part}: ${JSON.stringify(fold)}`).toBeLessThanOrEqual(720);
        // the dead-letter loop's labels (work → retry, retry → work) overlap nothing
        expect(await labelsOverlapping(page)).toEqual([]);
        expect(await page.locator('svg.graph .g-edge-label').count()).toBeGreaterThanOrEqual(2);
        expect(await page.locator(`#counts tr[data-queue="${NS}.orders.retry"] td:nth-child(2)`).innerText()).toMatch(
          /^[01]$/,
        );
        await shoot(page, 'live-retry-dlq-1920.png', { width: 1920, height: 1080 });
        await page.setViewportSize({ width: 1280, height: 720 });
        shotMidRun = true;
      }
      const before = await page.locator('#step-no').innerText();
      if (released % 2 === 0) await button.click();
      else await page.keyboard.press('Enter');
      // released: the run goes on (the next step arrives) or ends
      await expect
        .poll(async () => run.child.exitCode !== null || (await page.locator('#step-no').innerText()) !== before, {
          timeout: 30_000,
        })
        .toBe(true);
      released += 1;
    }
    const r = await run.exited(120_000);
    expect(r.exitCode, run.stderr()).toBe(0);
    // every pause the terminal announced was released from the page (retry-dlq: its gates, its TTL hops, after-consumer)
    expect(released).toBeGreaterThanOrEqual(11);
    expect(released).toBe((run.stderr().match(/press Enter to continue/g) ?? []).length);
    expect(shotMidRun).toBe(true);
    expect(counts.size, [...counts].join('\n')).toBeGreaterThan(1); // the queues' counts changed between pauses
    await expect.poll(() => page.locator('#verdict').getAttribute('data-verdict'), { timeout: 10_000 }).toBe('PASS');
    expect(await page.locator('#live-state').innerText()).toMatch(/run ended/);
    expect(await page.locator('table.checks tr.pass').count()).toBeGreaterThan(0);
    // after the run the page replays what it received
    await page.keyboard.press('Home');
    expect(await page.locator('#step-no').innerText()).toMatch(/^Step 1 \//);
    expect(await listening(run.port)).toBe(false);
    await viewer?.close();
  }, 240_000);

  it("hold --live --step: the source queue's node shows the lab's run-time policy after it is set, not before; the letter's token moves along the edges", async () => {
    const source = `q:${n.q('me12.retry.hold')}`;
    const dlx = `x:${n.x('me12.retry.hold.dlx')}`;
    const target = `q:${n.q('me12.retry.hold.target')}`;
    // known before: no policy of an earlier (interrupted) run, and statistics that show none
    await services.mgmt.deletePolicy(n.p('me12-hold'));
    await services.mgmt.queueWhen(source.slice(2), (q) => q.policy === null, 20_000);
    const run = await startLive(['hold', '--namespace', NS, '--live', '--port', '0', '--step']);
    // what the page showed as the run went, every 50 ms: the step's title and the policy on the source's node
    await page.addInitScript(() => {
      const w = window as unknown as { seen: { title: string; policy: string }[] };
      w.seen = [];
      setInterval(() => {
        const title = document.getElementById('step-title')?.textContent ?? '';
        const node = document.querySelector('svg.graph [data-node^="q:"][data-node$=".me12.retry.hold"]');
        const policy = (node as HTMLElement | SVGElement | null)?.dataset.policy ?? '';
        const last = w.seen.at(-1);
        if (!last || last.title !== title || last.policy !== policy) w.seen.push({ title, policy });
      }, 50);
    });
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(run.url);
    const node = page.locator(`svg.graph [data-node="${source}"]`);
    let shot = false;
    for (let i = 0; i < 4 && run.child.exitCode === null; i++) {
      const paused = await page
        .locator('#continue')
        .waitFor({ state: 'visible', timeout: 60_000 })
        .then(
          () => true,
          () => false,
        );
      if (!paused) break;
      if (!shot && /letter-held/.test(await page.locator('#step-title').innerText())) {
        // paused after the policy was set: the sampler goes on, the node shows it once the API does (about 2 s)
        await expect
          .poll(() => node.getAttribute('data-policy'), { timeout: 15_000 })
          .toBe(`policy ${n.p('me12-hold')}`);
        const lines = await node.locator('[data-policy-line]').allTextContents();
        expect(lines).toEqual(
          expect.arrayContaining(['dead-letter-strategy at-least-once', 'overflow reject-publish', 'max-length 100']),
        );
        expect(await policyOutside(page), 'policy lines outside their box').toEqual([]);
        // the binding the lab removed is drawn as removed, as the broker lists it at the pause (issue 46)
        expect(await services.mgmt.bindingsBetween(dlx.slice(2), target.slice(2))).toEqual([]);
        const edge = page.locator(`svg.graph path.g-binding[data-from="${dlx}"][data-to="${target}"]`);
        expect(await edge.getAttribute('class')).toMatch(/\boff\b/);
        expect(await page.locator('#bindings-now').innerText()).toBe(
          `Not bound now: ${dlx.slice(2)} → ${target.slice(2)}`,
        );
        await shoot(page, 'live-hold-policy-1280.png', { width: 1280, height: 720 });
        await shoot(page, 'live-hold-policy-1920.png', { width: 1920, height: 1080 });
        // the business panel has the checkpoint's facts, not its view again (nor "[object Object]")
        const business = await page.locator('#business').innerText();
        expect(business).toMatch(/targetDepth\s+0/);
        expect(business).not.toMatch(/\[object Object\]|\bview\b/);
        await page.setViewportSize({ width: 1280, height: 720 });
        shot = true;
      }
      await page.locator('#continue').click();
      await page.waitForTimeout(300);
    }
    const r = await run.exited(120_000);
    expect(r.exitCode, run.stderr()).toBe(0);
    expect(shot).toBe(true);
    const seen = await page.evaluate(() => (window as unknown as { seen: { title: string; policy: string }[] }).seen);
    // replayed: the steps before the lab's `policy applied` show the node without one, its pause
    // `letter-held` with it (read from the queue's record at the pause: the broker's, at once)
    const total = Number(/\/ (\d+)/.exec(await page.locator('#step-no').innerText())?.[1]);
    await page.keyboard.press('Home');
    const replay: { title: string; policy: string | null }[] = [];
    for (let i = 0; i < total; i++) {
      replay.push({
        title: await page.locator('#step-title').innerText(),
        policy: await node.getAttribute('data-policy'),
      });
      await page.keyboard.press('ArrowRight');
    }
    const at = replay.findIndex((x) => x.title === 'policy: applied');
    expect(at, JSON.stringify(replay)).toBeGreaterThanOrEqual(0);
    for (const x of replay.slice(0, at)) expect(x.policy, JSON.stringify(replay)).toBe('');
    const held = replay.find((x) => /letter-held/.test(x.title));
    expect(held?.policy, JSON.stringify(replay)).toBe(`policy ${n.p('me12-hold')}`);
    // live, in the order the page showed it: the node without a policy first, with it later. The page
    // follows the newest step, so it may skip the few before the policy (the lab sets it at once): what
    // it did show of them, it showed without one
    const first = seen.findIndex((x) => x.policy !== '');
    expect(first, JSON.stringify(seen)).toBeGreaterThan(0);
    const beforePolicy = new Set(replay.slice(0, at).map((x) => x.title));
    for (const x of seen) if (beforePolicy.has(x.title)) expect(x.policy, JSON.stringify(seen)).toBe('');
    // the letter's way to the target: along the policy's dead-letter route and the binding, its centre on each path
    await page.keyboard.press('Home');
    for (let i = 0; i < total && !/^target: received/.test(await page.locator('#step-title').innerText()); i++)
      await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    const track = page.evaluate(trackToken, 'held-event');
    await page.keyboard.press('ArrowRight');
    const frames = await track;
    expect(frames.length, JSON.stringify(frames)).toBeGreaterThan(5);
    // …and on to the process it delivers to, along the flow the run drew (issue 46)
    expect([...new Set(frames.map((f) => f.edge))]).toEqual([
      `${source}>${dlx}`,
      `${dlx}>${target}`,
      `${target}>p:target`,
    ]);
    for (const f of frames) expect(f.off, JSON.stringify(f)).toBeLessThan(1.5);
    expect(await page.locator('svg.graph .token[data-token="held-event"]').getAttribute('data-at')).toBe('p:target');
  }, 180_000);

  it('hold --live --step: its policy cleared from outside at letter-held, the pause says so from the broker, the run ends at once', async () => {
    const run = await startLive(['hold', '--namespace', NS, '--live', '--port', '0', '--step']);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(run.url);
    await page.locator('#continue').waitFor({ state: 'visible', timeout: 60_000 });
    expect(await page.locator('#step-title').innerText()).toMatch(/^pause: letter-held/);
    // another client clears it, as hold's Try this 2 does
    await services.mgmt.deletePolicy(n.p('me12-hold'));
    const note = page.locator('#since-pause');
    await note.waitFor({ state: 'visible', timeout: 15_000 });
    // what the pause says is what the broker shows: the source names no policy, the held letter is gone
    const source = await services.mgmt.queueNow(n.q('me12.retry.hold'));
    expect({ policy: source?.policy, messages: source?.messages }).toEqual({ policy: null, messages: 0 });
    expect(await note.innerText()).toBe(
      `Since the pause: policy: cleared from outside (policy=${n.p('me12-hold')} queue=${n.q('me12.retry.hold')} now=none messages=0)`,
    );
    expect(await page.locator('#step-title').innerText()).toMatch(/^pause: letter-held/); // still the pause
    expect((await note.boundingBox())!.y + (await note.boundingBox())!.height).toBeLessThanOrEqual(720);
    await page.locator('#continue').click();
    // no wait for the dead-letter worker (--recover-timeout 240 s) for a letter that is gone
    const r = await run.exited(30_000);
    expect(r.exitCode, run.stderr()).toBe(1);
    await expect
      .poll(() => page.locator('#lines').innerText(), { timeout: 10_000 })
      .toContain('was cleared from outside');
  });

  it('the player: ← → and space step through a recorded run, #step=N reopens the same state', async () => {
    const file = path.join(dir, 'retry.html');
    const r = await mqlab(['retry', '--namespace', NS, '--html', file]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto('file://' + file);
    const total = Number(/\/ (\d+)/.exec(await page.locator('#step-no').innerText())?.[1]);
    expect(total).toBeGreaterThan(8);
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    expect(await page.locator('#step-no').innerText()).toMatch(/^Step 3 \//);
    expect(page.url()).toMatch(/#step=3$/);
    const state = async () => ({
      title: await page.locator('#step-title').innerText(),
      counts: await page.locator('#counts').innerText(),
      tokens: await page
        .locator('svg.graph .token')
        .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-token')}@${e.getAttribute('data-at')}`)),
    });
    const at3 = await state();
    // the same state when the URL is opened again, in a fresh page
    const again = await browser.context.newPage();
    await again.goto('file://' + file + '#step=3');
    expect(await again.locator('#step-title').innerText()).toBe(at3.title);
    expect(await again.locator('#counts').innerText()).toBe(at3.counts);
    await again.close();
    // the poison message's token is in the DLQ at the step its reader received it
    await page.keyboard.press('Home');
    for (let i = 0; i < total && !/^dlq: received · poison$/.test(await page.locator('#step-title').innerText()); i++)
      await page.keyboard.press('ArrowRight');
    expect(await page.locator('#step-title').innerText()).toBe('dlq: received · poison');
    expect(await page.locator(`svg.graph .token[data-token="poison"]`).getAttribute('data-at')).toBe(
      `q:${NS}.me12.retry.dlq`,
    );
    // space plays from the start, space pauses
    await page.keyboard.press('Home');
    await page.keyboard.press(' ');
    await expect
      .poll(async () => Number(/^Step (\d+)/.exec(await page.locator('#step-no').innerText())?.[1]), {
        timeout: 15_000,
      })
      .toBeGreaterThan(2);
    await page.keyboard.press(' ');
    const paused = await page.locator('#step-no').innerText();
    await page.waitForTimeout(1500);
    expect(await page.locator('#step-no').innerText()).toBe(paused);
    // projector sizes: the smallest text, no horizontal scroll
    await page.goto('file://' + file + '#step=6');
    await shoot(page, 'player-retry-1280.png', { width: 1280, height: 720 });
    await shoot(page, 'player-retry-1920.png', { width: 1920, height: 1080 });
    // the page uses the width it has: the bench spans most of a 1920 px screen
    const width = await page.locator('section.bench').evaluate((el) => el.getBoundingClientRect().width);
    expect(width).toBeGreaterThan(1700);
  }, 120_000);

  it('outbox in the player: a token per published copy, as many in the queue as the broker counted at each pause, the duplicate skipped', async () => {
    const file = path.join(dir, 'outbox.html');
    const r = await mqlab(['outbox', '--namespace', NS, '--html', file]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const queue = n.q('me12.outbox.orders');
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto('file://' + file);
    const total = Number(/\/ (\d+)/.exec(await page.locator('#step-no').innerText())?.[1]);
    await page.keyboard.press('Home');
    const node = page.locator(`svg.graph [data-node="q:${queue}"]`);
    const inQueue = () =>
      page
        .locator(`svg.graph .token[data-at="q:${queue}"]`)
        .evaluateAll((els) => els.map((e) => e.querySelector('text')!.textContent).sort());
    const pauses: { title: string; table: string; node: string | null; tokens: string[] }[] = [];
    let skip: { title: string; skipped: string[]; applied: string[] } | null = null;
    for (let i = 0; i < total; i++) {
      const title = await page.locator('#step-title').innerText();
      // at a pause the counts are the broker's at that moment (queue.declare at the pause)
      if (/^pause: /.test(title))
        pauses.push({
          title,
          table: await page.locator(`#counts tr[data-queue="${queue}"] td:nth-child(2)`).innerText(),
          node: await node.locator('[data-count=ready]').textContent(),
          tokens: await inQueue(),
        });
      if (/duplicate skipped/.test(title))
        skip = {
          title,
          skipped: await page.locator('svg.graph .token.skipped text').allTextContents(),
          applied: await page.locator('svg.graph .token.done:not(.skipped) text').allTextContents(),
        };
      if (/^pause: relayed/.test(title)) {
        await shoot(page, 'player-outbox-1280.png', { width: 1280, height: 720 });
        const fold = await essentials(page);
        for (const [part, y] of Object.entries(fold))
          expect(y, `${part}: ${JSON.stringify(fold)}`).toBeLessThanOrEqual(720);
        await shoot(page, 'player-outbox-1920.png', { width: 1920, height: 1080 });
        await page.setViewportSize({ width: 1280, height: 720 });
      }
      await page.keyboard.press('ArrowRight');
    }
    expect(pauses.map((p) => p.title)).toEqual([
      'pause: committed',
      'pause: relay-crashed',
      'pause: relayed',
      'pause: consumed',
    ]);
    for (const p of pauses) {
      expect(Number(p.table), JSON.stringify(p)).toBe(p.tokens.length);
      expect(p.node, JSON.stringify(p)).toBe(`ready ${p.tokens.length}`);
    }
    // relayed: order 2 twice (relay-run1's copy, confirmed before it was killed, and relay-run2's)
    expect(pauses[2]?.tokens).toEqual(['1', '2#1', '2#2']);
    // the consumer applied the first copy and skipped the second as a duplicate
    expect(skip?.skipped, JSON.stringify(skip)).toEqual(['2#2']);
    expect(skip?.applied.sort(), JSON.stringify(skip)).toEqual(expect.arrayContaining(['1', '2#1']));
    expect(await namesCut(page)).toEqual([]);
  }, 120_000);

  it('mqlab all --live --jobs 4: a button per lab as it starts, each with its verdict when it ends; the server closes', async () => {
    // the workshop's labs (docs/workshop.md) four at once; the others are SKIP with --skip (each lab's own test runs it)
    const kept = ['retry', 'consumer-crash', 'outbox', 'retry-dlq'];
    const skip = registry.map((l) => l.name).filter((n) => !kept.includes(n));
    const run = await startLive([
      'all',
      '--jobs',
      '4',
      '--skip',
      skip.join(','),
      '--namespace',
      NS,
      '--json',
      '--live',
      '--port',
      '0',
    ]);
    // mid-run: a button per lab started so far, at least one of them still running. Recorded by the
    // page itself as it draws them (four short labs may all end before a poll from here comes round)
    await page.addInitScript(() => {
      const w = window as unknown as { running: string[] };
      w.running = [];
      new MutationObserver(() => {
        for (const b of document.querySelectorAll('#labs-nav button'))
          if (/ RUNNING$/.test(b.textContent ?? '') && !w.running.includes(b.textContent))
            w.running.push(b.textContent);
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(run.url);
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { running: string[] }).running.length), {
        timeout: 60_000,
      })
      .toBeGreaterThan(0);
    await shoot(page, 'live-all-1280.png', { width: 1280, height: 720 });
    const r = await run.exited(300_000);
    const doc = JSON.parse(r.stdout) as { labs: { lab: string; status: string; error?: unknown; checks?: unknown }[] };
    const failed = doc.labs.filter((l) => l.status !== 'passed' && l.status !== 'skipped');
    expect(r.exitCode, failed.map((l) => `${l.lab}: ${JSON.stringify(l.error ?? l.checks)}`).join('\n')).toBe(0);
    await expect.poll(() => page.locator('#live-state').innerText(), { timeout: 10_000 }).toMatch(/run ended/);
    // a button per lab that ran (in the order they started), each with its verdict in the run's own --json document
    const verdicts = new Map(
      doc.labs.map((l) => [l.lab, l.status === 'passed' ? 'PASS' : l.status === 'skipped' ? 'SKIP' : 'FAIL']),
    );
    const buttons = (await page.locator('#labs-nav button').allInnerTexts()).map((t) => t.split(' '));
    expect(buttons.map(([lab]) => lab).sort()).toEqual([...kept].sort());
    for (const [lab, verdict] of buttons) expect(verdict, lab).toBe(verdicts.get(lab!));
    expect(
      doc.labs
        .filter((l) => l.status === 'passed')
        .map((l) => l.lab)
        .sort(),
    ).toEqual([...kept].sort());
    // each lab's graph: every name inside its box, in full (no ellipsis), no edge label over anything
    for (const lab of kept) {
      await page.locator('#labs-nav button', { hasText: new RegExp(`^${lab} `) }).click();
      expect(await namesOutside(page), lab).toEqual([]);
      expect(await labelsOverlapping(page), lab).toEqual([]);
      expect(await namesCut(page), lab).toEqual([]);
    }
    // a lab's button opens that lab's bench: its verdict and its own namespaced queues
    await page.locator('#labs-nav button', { hasText: /^outbox / }).click();
    await expect.poll(() => page.locator('#verdict').getAttribute('data-verdict'), { timeout: 5_000 }).toBe('PASS');
    expect(await page.locator('svg.graph').innerHTML()).toContain(`${NS}_j`);
    expect(await listening(run.port)).toBe(false);
  }, 360_000);

  it('bad input: a port in use or a bad --port is one line and exit 2', async () => {
    const busy = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => busy.once('listening', r));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      const r = await mqlab(['retry-dlq', '--namespace', NS, '--live', '--port', String(port)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(
          `^mqlab: --live: port ${port} on 127\\.0\\.0\\.1 is in use\\n  → choose another with --port N, or --port 0 for any free port$`,
        ),
      );
      expect(r.stdout).toBe('');
    } finally {
      busy.close();
    }
    for (const bad of ['70000', 'abc', '-1']) {
      const r = await mqlab(['retry-dlq', '--live', '--port', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toMatch(/^mqlab: --port must be a whole number from 0 to 65535, got '.*'$/);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack
    }
    const lone = await mqlab(['retry-dlq', '--port', '9']);
    expect(lone.code).toBe(2);
    expect(lone.stderr).toMatch(/^mqlab: --port is the port of the --live page\n/);
  });

  it('a pause stays the live step while other processes log events during it: Continue, the viewer note, the release', async () => {
    // the session as the runner drives it, no lab: a paused checkpoint, then an event logged during the
    // pause (a publisher's confirm, a delivery: on a busy machine they reach the feed after the pause)
    const { startLive: startSession } = await import('../src/page/session.js');
    const live = await startSession({ port: 0 });
    const viewer = await browser.context.newPage();
    try {
      live.feed.labStarted({
        lab: 'retry-dlq',
        title: 'a pause',
        topology: null,
        checkpoints: ['after-delivery'],
        faults: [],
      });
      const at = (ms: number) => new Date(Date.now() + ms).toISOString();
      const ev = (source: string, fields: Record<string, string>) => live.feed.event('retry-dlq', { source, fields });
      ev('publisher', { timestamp: at(0), event: 'published', messageId: 'm1' });
      ev('checkpoint', { timestamp: at(10), checkpoint: 'after-delivery', token: 't-1', status: 'waiting' });
      let released = false;
      const pause = live.pause(() => new Promise(() => {})).then(() => (released = true));
      ev('publisher', { timestamp: at(20), event: 'confirmed', messageId: 'm2' });
      await page.goto(live.url);
      await viewer.goto(live.url);
      // both pages show the pause, not the newer event; only the first can release it
      await page.locator('#continue').waitFor({ state: 'visible', timeout: 10_000 });
      expect(await page.locator('#step-title').innerText()).toMatch(/^pause: /);
      expect(await page.locator('#step-no').innerText()).toMatch(/^Step 2 \/ 3 .* live$/);
      await viewer.locator('#viewer-note').waitFor({ state: 'visible', timeout: 10_000 });
      expect(await viewer.locator('#step-title').innerText()).toMatch(/^pause: /);
      // one more event while both pages look: the pause stays where they are
      ev('consumer', { timestamp: at(30), event: 'received', messageId: 'm2' });
      await expect.poll(() => page.locator('#step-no').innerText(), { timeout: 5_000 }).toMatch(/^Step 2 \/ 4 /);
      expect(await page.locator('#continue').isVisible()).toBe(true);
      // the steps logged during the pause are one → away, and back
      await page.keyboard.press('ArrowRight');
      expect(await page.locator('#step-no').innerText()).toMatch(/^Step 3 \/ 4 .*after the pause$/);
      await page.keyboard.press('ArrowLeft');
      await page.locator('#continue').click();
      await expect.poll(() => released, { timeout: 5_000 }).toBe(true);
      await pause;
    } finally {
      await viewer.close();
      await live.close();
    }
  });

  it("another site's page (another port of 127.0.0.1, which gets the page's cookie) neither starts nor reads the run", async () => {
    const { startLive: startSession } = await import('../src/page/session.js');
    const live = await startSession({ port: 0 });
    const port = Number(new URL(live.url).port);
    const token = new URL(live.url).searchParams.get('token')!;
    let started = false;
    void live.firstPage(() => new Promise(() => {})).then(() => (started = true));
    // the browser holds the presenter's cookie, as after the printed address was opened
    await browser.context.addCookies([
      { name: `mqlab-token-${port}`, value: token, domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Strict' },
    ]);
    // a page another local user serves on 127.0.0.1 (same site, another origin): an <img>, a no-cors
    // fetch with credentials and an EventSource at the run's stream
    const evil = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' })
        .end(`<img id="i" src="http://127.0.0.1:${port}/events"><script>
        window.tried = Promise.all([
          new Promise((r) => { const i = document.getElementById('i'); i.onerror = i.onload = r; if (i.complete) r(); }),
          fetch('http://127.0.0.1:${port}/events', { mode: 'no-cors', credentials: 'include' }).catch(() => null),
          new Promise((r) => { const e = new EventSource('http://127.0.0.1:${port}/events', { withCredentials: true }); e.onerror = () => { e.close(); r(); }; }),
        ]).then(() => 'done');
      </script>`),
    );
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    const other = await browser.context.newPage();
    try {
      await other.goto(`http://127.0.0.1:${(evil.address() as net.AddressInfo).port}/`);
      expect(await other.evaluate(() => (window as unknown as { tried: Promise<string> }).tried)).toBe('done');
      await new Promise((r) => setImmediate(r));
      expect(started).toBe(false);
      // the presenter's own page (its cookie, same origin) does
      await page.goto(`http://127.0.0.1:${port}/`);
      expect(page.url()).toBe(`http://127.0.0.1:${port}/`);
      await expect.poll(() => started, { timeout: 10_000 }).toBe(true);
      // the printed address, opened: the page takes the token out of its address bar
      await page.goto(live.url);
      await expect.poll(() => page.url(), { timeout: 5_000 }).toBe(`http://127.0.0.1:${port}/`);
    } finally {
      await other.close();
      evil.close();
      await browser.context.clearCookies();
      await live.close();
    }
  });

  it('Ctrl-C during a live run leaves no listener behind', async () => {
    const run = await startLive(['retry-dlq', '--namespace', NS, '--live', '--port', '0', '--step']);
    await page.goto(run.url);
    await page.locator('#continue').waitFor({ state: 'visible', timeout: 60_000 });
    run.child.kill('SIGINT');
    const r = await run.exited(60_000);
    expect(r.exitCode).toBe(130);
    expect(await listening(run.port)).toBe(false);
  }, 120_000);
});
