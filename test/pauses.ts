/**
 * Every pause of a lab, as a class sees it on the projector (issue 46): `mqlab <lab> --live --step
 * --json` driven from the page in headless Chromium at 1280×720, and at each pause
 * - the pause's meaning (title, description) and Continue above the fold;
 * - the bindings the graph draws (not struck) are the ones the broker lists now, from the lab's
 *   exchanges to its queues — a binding the lab removed is not drawn as bound;
 * - the queues' table adds up to no more messages than were published into the lab's queues so far
 *   (the broker's own count: the statistics' `publish` of each queue since the run began, read once
 *   they settle; a dead-lettered message moves, it is not published again);
 * then Continue. At the end the run passed, and every checkpoint's view in --json adds up the same way.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import { execa } from 'execa';
import { CLI, CONFIG, startMqlab } from './helpers.js';
import { SCREENSHOTS } from './browser.js';
import { Management } from '../src/broker/management.js';
import type { CheckpointView } from '../src/core/checkpoint-view.js';

const mgmt = new Management(CONFIG.mgmtUrl, CONFIG.vhost);

/** the messages published into `queues`, as the broker counts them, once two readings 1.2 s apart agree */
async function publishCount(queues: readonly string[]): Promise<number> {
  const read = async () => {
    let n = 0;
    for (const q of queues) {
      const r = await mgmt.request<{ message_stats?: { publish?: number } } | null>(
        'GET',
        `/api/queues/${encodeURIComponent(CONFIG.vhost)}/${encodeURIComponent(q)}?columns=message_stats.publish`,
      );
      n += r?.message_stats?.publish ?? 0;
    }
    return n;
  };
  let last = await read();
  for (let i = 0; i < 8; i++) {
    await new Promise((r) => setTimeout(r, 1200));
    const next = await read();
    if (next === last) return next;
    last = next;
  }
  return last;
}

/**
 * the messages the node routed to a queue since it started (AMQP 0-9-1, every vhost): the node's
 * global counters, counted as each publish is routed — unlike a queue's `message_stats.publish`,
 * which loses what a channel published within a statistics interval of its closing (outbox's
 * second relay publishes one message and exits); null where the node does not say
 */
async function routedCount(): Promise<number | null> {
  const expr = 'maps:get(messages_routed_total, maps:get(#{protocol => amqp091}, rabbit_global_counters:overview())).';
  // an Erlang CLI start: 1 s idle, 7 s at a load of 20; a reading that does not come is no reading
  const r = await execa('node', [CLI, 'ctl', 'eval', expr], { reject: false, timeout: 60_000 });
  return r.exitCode === 0 && /^\d+$/.test(r.stdout.trim()) ? Number(r.stdout.trim()) : null;
}

/**
 * the messages published into `queues` since it was made (a bound from above on what they can
 * hold): the queues' own publish statistics, or where a closed channel's were lost, the node's
 * routed count (every publish of the node, so a looser bound); both start again from 0 when the
 * node restarts (broker-restart): what was counted before is kept
 */
export async function publishedSince(queues: readonly string[]) {
  const counter = async (read: () => Promise<number | null>) => {
    const start = await read();
    let before = 0;
    let last = start;
    return async () => {
      const now = await read();
      if (now === null || start === null || last === null) return null;
      if (now < last) before += last;
      last = now;
      return before + now - start;
    };
  };
  const own = await counter(() => publishCount(queues));
  const routed = await counter(routedCount);
  return async (total: number) => {
    const n = (await own())!;
    return n >= total ? n : Math.max(n, (await routed()) ?? n);
  };
}

/** what the page shows at a pause: the queues' table, the drawn bindings, the graph's exchanges and queues, the fold */
const shown = (page: Page) =>
  page.evaluate(() => {
    const cells = [...document.querySelectorAll('#counts tr[data-queue]')].map((tr) => ({
      queue: tr.getAttribute('data-queue')!,
      // a count, or null where the page shows none (– or ?)
      counts: [...tr.querySelectorAll('td')].slice(1).map((td) => {
        const n = Number.parseInt(td.textContent ?? '', 10);
        return Number.isNaN(n) ? null : n;
      }),
    }));
    const bottom = (sel: string) => Math.round(document.querySelector(sel)!.getBoundingClientRect().bottom);
    const nodes = (p: string) =>
      [...document.querySelectorAll(`svg.graph [data-node^="${p}:"]`)].map((n) =>
        n.getAttribute('data-node')!.slice(2),
      );
    // the tokens drawn inside each queue's node (a settled one is the consumer's, not the queue's)
    const tokens: Record<string, number> = {};
    for (const t of document.querySelectorAll('svg.graph .tokens [data-token]'))
      if ((t as SVGElement).dataset.at?.startsWith('q:') && !t.classList.contains('done'))
        tokens[(t as SVGElement).dataset.at!.slice(2)] = (tokens[(t as SVGElement).dataset.at!.slice(2)] ?? 0) + 1;
    // the tokens drawn at an exchange (which holds no message)
    const atExchange = [...document.querySelectorAll('svg.graph .tokens [data-token]')]
      .filter((t) => (t as SVGElement).dataset.at?.startsWith('x:') && !t.classList.contains('done'))
      .map((t) => (t as SVGElement).dataset.at!);
    const gone = document.getElementById('gone-now')!;
    return {
      title: document.getElementById('step-title')!.textContent ?? '',
      cells,
      tokens,
      atExchange,
      gone: gone.hidden ? '' : (gone.textContent ?? ''),
      // an exchange and a queue bound with two keys: two edges, one binding between them as the graph names it
      drawn: [
        ...new Set(
          [...document.querySelectorAll('svg.graph path.g-binding:not(.off)')].map(
            (e) => `${(e as SVGElement).dataset.from}>${(e as SVGElement).dataset.to}`,
          ),
        ),
      ].sort(),
      exchanges: nodes('x'),
      queues: nodes('q'),
      fold: {
        step: Math.max(bottom('#step-title'), bottom('#step-desc')),
        continue: bottom('#continue'),
        // the message panel: its heading and the message's first fields (the rest fold away)
        message: Math.max(bottom('#message-head'), bottom('#message')),
        // the panel's right edge on the screen, and its queues' table inside it (not cut at its side)
        right: Math.round(document.querySelector('aside.step-panel')!.getBoundingClientRect().right),
        table: Math.round(
          document.getElementById('counts')!.getBoundingClientRect().right -
            document.querySelector('aside.step-panel')!.getBoundingClientRect().right,
        ),
      },
    };
  });

/** the bindings the broker lists now from `exchanges` to `queues`, as the graph names them */
async function bound(exchanges: string[], queues: string[]): Promise<string[]> {
  const all = (await Promise.all(exchanges.map((x) => mgmt.exchangeBindings(x)))).flat();
  return [
    ...new Set(
      all
        .filter((b) => b.destination_type === 'queue' && queues.includes(b.destination))
        .map((b) => `x:${b.source}>q:${b.destination}`),
    ),
  ].sort();
}

/** run `lab` paused at every checkpoint from the page and check each pause; returns what was seen */
export async function everyPause(page: Page, lab: string, namespace: string) {
  const run = startMqlab([lab, '--namespace', namespace, '--live', '--port', '0', '--step', '--json']);
  let stderr = '';
  run.child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  try {
    await run.stderrShows(' (127.0.0.1 only', 60_000);
    const url = /live page at (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/.exec(stderr)?.[1] ?? '';
    await page.setViewportSize({ width: 1280, height: 720 });
    // the lab's queues (for the broker's count), from its --names
    const names = startMqlab([lab, '--namespace', namespace, '--names', '--json']);
    const namesOut = await names.exited(30_000);
    const labQueues = (JSON.parse(namesOut.stdout) as { queues: string[] }).queues;
    const published = await publishedSince(labQueues);
    const ended = new Promise<false>((r) => run.child.once('exit', () => r(false)));
    await page.goto(url);
    const pauses: { title: string; total: number; published: number; gone: string }[] = [];
    for (let i = 0; i < 60; i++) {
      // the next pause, or the run's end
      const paused = await Promise.race([
        page
          .locator('#continue')
          .waitFor({ state: 'visible', timeout: 120_000 })
          .then(
            () => true,
            () => false,
          ),
        ended,
      ]);
      if (!paused || run.child.exitCode !== null) break;
      const s = await shown(page);
      const where = `${lab} pause ${i + 1} (${s.title})`;
      // the pause's meaning and Continue above the fold at 1280×720
      expect(s.fold.step, where).toBeLessThanOrEqual(720);
      expect(s.fold.continue, where).toBeLessThanOrEqual(720);
      expect.soft(s.fold.message, `${where}: the message panel`).toBeLessThanOrEqual(720);
      expect.soft(s.fold.right, `${where}: the panel's right edge`).toBeLessThanOrEqual(1280);
      expect.soft(s.fold.table, `${where}: the queues' table past its panel's right edge`).toBeLessThanOrEqual(-2);
      const total = s.cells.reduce((n, c) => n + c.counts.reduce<number>((a, b) => a + (b ?? 0), 0), 0);
      if (
        !(await mgmt.overview().then(
          () => true,
          () => false,
        ))
      ) {
        // the node is down at this pause (broker-restart): the table shows no count at all, none invented
        expect(
          s.cells.flatMap((c) => c.counts).filter((c) => c !== null),
          where,
        ).toEqual([]);
        pauses.push({ title: s.title, total, published: Infinity, gone: s.gone });
      } else {
        // the drawn bindings are the broker's
        expect(s.drawn, where).toEqual(await bound(s.exchanges, s.queues));
        // the tokens drawn in a queue: no more than the pause's reading counts there (the table: the broker's)
        for (const c of s.cells)
          if (c.counts.every((n) => n !== null))
            expect
              .soft(
                s.tokens[c.queue] ?? 0,
                `${where}: tokens drawn in ${c.queue}, its counts ${JSON.stringify(c.counts)}`,
              )
              .toBeLessThanOrEqual(c.counts.reduce<number>((a, b) => a + (b ?? 0), 0));
        // no letter drawn at an exchange: the broker's reading put it in a queue, or the page says where it went
        expect.soft(s.atExchange, `${where}: tokens drawn at exchanges (${s.gone})`).toEqual([]);
        // a letter the page says was dropped at an unbound exchange: the broker binds that exchange to nothing now
        for (const x of s.gone.matchAll(/(?:dead-lettered|sent) to (\S+), which the broker binds to no queue now/g)) {
          const exchange = s.exchanges.find((e) => e === x[1] || e.endsWith(`.${x[1]}`));
          expect(exchange, `${where}: ${s.gone}`).toBeDefined();
          expect(await mgmt.exchangeBindings(exchange!), `${where}: ${s.gone}`).toEqual([]);
        }
        // no more messages than were published into the lab's queues so far
        const n = await published(total);
        expect(total, `${where}: ${JSON.stringify(s.cells)} with ${n} published`).toBeLessThanOrEqual(n);
        pauses.push({ title: s.title, total, published: n, gone: s.gone });
      }
      if (i === 0) {
        fs.mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: path.join(SCREENSHOTS, `pause-${lab}-1280.png`) });
      }
      const step = await page.locator('#step-no').innerText();
      await page.locator('#continue').click();
      await expect
        .poll(async () => run.child.exitCode !== null || (await page.locator('#step-no').innerText()) !== step, {
          timeout: 60_000,
        })
        .toBe(true);
    }
    const r = await run.exited(180_000);
    expect(r.exitCode, stderr).toBe(0);
    // every checkpoint's view in --json: the same bound, pause by pause
    const doc = JSON.parse(r.stdout) as { labs: { events: { view?: CheckpointView }[] }[] };
    const views = (doc.labs[0]?.events ?? []).flatMap((e) => (e.view ? [e.view] : []));
    expect(views.length, stderr).toBe(pauses.length);
    views.forEach((v, i) => {
      const total = v.queues.reduce((n, q) => n + (q.ready ?? 0) + (q.unacked ?? 0) + (q.held ?? 0), 0);
      expect(total, `${lab} ${v.checkpoint}: ${JSON.stringify(v.queues)}`).toBeLessThanOrEqual(pauses[i]!.published);
      expect(['settled', 'ready-only', 'changing']).toContain(v.broker?.reading);
    });
    return pauses;
  } finally {
    if (run.child.exitCode === null) {
      run.child.kill('SIGINT');
      await run.exited(30_000).catch(() => {});
    }
  }
}
