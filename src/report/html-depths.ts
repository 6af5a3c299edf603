/**
 * The queue-depth chart under the timeline: each of the lab's queues (its ready messages, sampled
 * during the run) as a step line on the same time axis.
 * Lines differ by dash pattern and carry their queue's name, so they read without colour.
 */
import type { DepthSeries } from '../broker/depth-sampler.js';
import { esc } from './html-marks.js';

export const DEPTH_HEIGHT = 130;
const PLOT = { top: 22, bottom: DEPTH_HEIGHT - 8 };
const STYLES = [
  { colour: '#0072B2', dash: '' },
  { colour: '#D55E00', dash: '6 3' },
  { colour: '#009E73', dash: '2 2' },
  { colour: '#CC79A7', dash: '8 3 2 3' },
  { colour: '#E69F00', dash: '1 3' },
  { colour: '#555555', dash: '10 4' },
];

/** per queue, its ready messages in each sample; null where the queue was absent */
export function depthTotals(d: DepthSeries): (number | null)[][] {
  return d.queues.map((_, q) => d.samples.map((s) => s.ready[q] ?? null));
}

export function depthChart(d: DepthSeries | undefined, x: (t: number) => number, g: { left: number; width: number; right: number }): string {
  const title = `<text x="8" y="14" class="lane-label">queue depths</text><text x="8" y="30" class="lane-sub">ready messages</text><text x="8" y="44" class="lane-sub">(sampled)</text>`;
  if (!d || d.samples.length === 0) {
    return `${title}<text x="${g.left}" y="40" class="lane-sub">no samples${d?.missed ? ` (${d.missed} requests failed)` : ''}</text>`;
  }
  const totals = depthTotals(d);
  const max = Math.max(1, ...totals.flat().map((v) => v ?? 0));
  const y = (v: number) => PLOT.bottom - (v / max) * (PLOT.bottom - PLOT.top);
  const times = d.samples.map((s) => x(Date.parse(s.timestamp)));
  const out = [title,
    `<line class="tick" x1="${g.left}" x2="${g.width - g.right}" y1="${PLOT.bottom}" y2="${PLOT.bottom}"/>`,
    `<text class="tick-label" x="${g.left - 6}" y="${PLOT.bottom + 4}" text-anchor="end">0</text>`,
    `<text class="tick-label" x="${g.left - 6}" y="${PLOT.top + 4}" text-anchor="end">${max}</text>`,
    `<line class="tick" x1="${g.left}" x2="${g.width - g.right}" y1="${PLOT.top}" y2="${PLOT.top}"/>`];
  totals.forEach((series, q) => {
    const st = STYLES[q % STYLES.length];
    let path = '';
    let prev: number | null = null;
    series.forEach((v, i) => {
      if (v === null) return void (prev = null);
      const px = times[i].toFixed(1);
      path += prev === null ? `M${px},${y(v)}` : ` H${px} V${y(v)}`;
      prev = v;
    });
    const peak = Math.max(0, ...series.map((v) => v ?? 0));
    out.push(`<path class="depth" data-queue="${esc(d.queues[q])}" d="${path}" stroke="${st.colour}" stroke-dasharray="${st.dash}">` +
      `<title>${esc(`${d.queues[q]}: peak ${peak}, ${d.samples.length} samples every ${d.intervalMs} ms`)}</title></path>`);
  });
  return out.join('\n');
}

/** the chart's key as HTML: each queue's line style, name and peak */
export function depthKeys(d: DepthSeries | undefined): string {
  if (!d || d.samples.length === 0) return '';
  const totals = depthTotals(d);
  const keys = d.queues.map((name, q) => {
    const st = STYLES[q % STYLES.length];
    const peak = Math.max(0, ...totals[q].map((v) => v ?? 0));
    return `<li><svg width="30" height="10" aria-hidden="true"><line x1="0" x2="30" y1="5" y2="5" stroke="${st.colour}" stroke-width="2.5" stroke-dasharray="${st.dash}"/></svg>${esc(name)} (peak ${peak})</li>`;
  });
  const missed = d.missed ? `; ${d.missed} failed` : '';
  return `<ul class="depth-keys">${keys.join('')}</ul><p class="note">Queue depths: ${d.samples.length} samples by ${esc(d.method)}, ` +
    `one every ${d.intervalMs} ms${missed}. Messages a consumer holds unacked are not counted as ready.</p>`;
}
