/**
 * The queue-depth charts under the timeline, on the same time axis: each of the lab's queues as a
 * step line, once as sampled by passive queue.declare (ready messages, at that moment) and once as
 * each queue's own counters said (all messages: ready, unacked and held; about once a second).
 * Lines differ by dash pattern and carry their queue's name in the key, so they read without colour.
 */
import type { DepthSeries } from '../broker/depth-sampler.js';
import { esc } from './html-marks.js';
import { must } from '../core/must.js';

type DepthKind = 'ready' | 'messages';
export const DEPTH_HEIGHT = 100;
const PLOT = { top: 14, bottom: DEPTH_HEIGHT - 20 };
const STYLES = [
  { colour: '#0072B2', dash: '' },
  { colour: '#D55E00', dash: '6 3' },
  { colour: '#009E73', dash: '2 2' },
  { colour: '#CC79A7', dash: '8 3 2 3' },
  { colour: '#E69F00', dash: '1 3' },
  { colour: '#555555', dash: '10 4' },
];
const TITLE: Record<DepthKind, [string, string, string]> = {
  ready: ['ready', 'queue.declare', 'at that moment'],
  messages: ['all messages', 'with unacked', 'and held'],
};

/** the samples that hold this kind (the management API is asked in some samples only) */
const samplesOf = (d: DepthSeries, kind: DepthKind) => d.samples.filter((s) => s[kind] !== undefined);

/** per queue, its count in each sample of this kind; null where the queue was absent or the API did not answer */
function depthSeries(d: DepthSeries, kind: DepthKind): (number | null)[][] {
  const samples = samplesOf(d, kind);
  return d.queues.map((_, q) => samples.map((s) => s[kind]?.[q] ?? null));
}

export function depthChart(
  d: DepthSeries | undefined,
  kind: DepthKind,
  x: (t: number) => number,
  g: { left: number; width: number; right: number },
): string {
  const [t1, t2, t3] = TITLE[kind];
  const title = `<text x="8" y="16" class="lane-label">${t1}</text><text x="8" y="35" class="lane-sub">${t2}</text><text x="8" y="53" class="lane-sub">${t3}</text>`;
  if (!d || d.samples.length === 0) {
    return `${title}<text x="${g.left}" y="40" class="lane-sub">no samples${d?.missed ? ` (${d.missed} failed)` : ''}</text>`;
  }
  const series = depthSeries(d, kind);
  const max = Math.max(1, ...series.flat().map((v) => v ?? 0));
  const y = (v: number) => PLOT.bottom - (v / max) * (PLOT.bottom - PLOT.top);
  const times = samplesOf(d, kind).map((s) => x(Date.parse(s.timestamp)));
  const out = [
    title,
    `<line class="tick" x1="${g.left}" x2="${g.width - g.right}" y1="${PLOT.bottom}" y2="${PLOT.bottom}"/>`,
    `<text class="tick-label" x="${g.left + 4}" y="${PLOT.bottom - 4}" text-anchor="start">0</text>`,
    `<text class="tick-label" x="${g.left + 4}" y="${PLOT.top + 16}" text-anchor="start">${max}</text>`,
    `<line class="tick" x1="${g.left}" x2="${g.width - g.right}" y1="${PLOT.top}" y2="${PLOT.top}"/>`,
  ];
  series.forEach((values, q) => {
    const st = styleOf(q);
    let path = '';
    let prev: number | null = null;
    values.forEach((v, i) => {
      if (v === null) return void (prev = null);
      const px = must(times[i], `the time of ${kind} sample ${i}`).toFixed(1);
      path += prev === null ? `M${px},${y(v)}` : ` H${px} V${y(v)}`;
      prev = v;
    });
    const peak = Math.max(0, ...values.map((v) => v ?? 0));
    out.push(
      `<path class="depth" data-kind="${kind}" data-queue="${esc(d.queues[q])}" d="${path}" stroke="${st.colour}" stroke-dasharray="${st.dash}">` +
        `<title>${esc(`${d.queues[q]}: ${t1}, peak ${peak}`)}</title></path>`,
    );
  });
  return out.join('\n');
}

/** queue q's line style (the styles repeat after the last) */
const styleOf = (q: number) => must(STYLES[q % STYLES.length], 'a depth line style');

/** the charts' key as HTML: each queue's line style, name and peaks */
export function depthKeys(d: DepthSeries | undefined): string {
  if (!d || d.samples.length === 0) return '';
  const ready = depthSeries(d, 'ready');
  const all = depthSeries(d, 'messages');
  const peak = (v: (number | null)[]) => Math.max(0, ...v.map((n) => n ?? 0));
  const keys = d.queues.map((name, q) => {
    const st = styleOf(q);
    return (
      `<li><svg width="30" height="10" aria-hidden="true"><line x1="0" x2="30" y1="5" y2="5" stroke="${st.colour}" stroke-width="2.5" stroke-dasharray="${st.dash}"/></svg>` +
      `${esc(name)} (peak ${peak(must(ready[q], `the ready depths of ${name}`))} ready, ${peak(must(all[q], `the depths of ${name}`))} in all)</li>`
    );
  });
  const missed = d.missed ? `; ${d.missed} failed` : '';
  return (
    `<ul class="depth-keys">${keys.join('')}</ul><p class="note">Queue depths: ${d.samples.length} samples, one every ${d.intervalMs} ms${missed}: ` +
    `ready by ${esc(d.method.ready)}; all messages (${samplesOf(d, 'messages').length} samples, about one a second) by the ${esc(d.method.messages)}.</p>`
  );
}
