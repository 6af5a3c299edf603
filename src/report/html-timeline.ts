/**
 * The --html timeline as one inline SVG: a time axis, one lane per process, one mark per event
 * (its key=value fields in a <title>), message journeys as connectors, checkpoints and crashes as
 * lines across the lanes, and the queue-depth chart on the same time axis below.
 */
import type { DepthSeries } from '../broker/depth-sampler.js';
import { eventTime, formatMs, journeys, laneKey, lanes, markKind, stackRows, tickStep, timeScale, type MarkKind, type TimelineEvent } from './html-layout.js';
import { esc, shape } from './html-marks.js';
import { depthChart, DEPTH_HEIGHT } from './html-depths.js';

export const GEOMETRY = { width: 1200, left: 170, right: 40, axis: 34, lane: 50, rows: 3, rowGap: 12, minGap: 7 };

export interface TimelineInput {
  events: TimelineEvent[];
  window?: { start: string; end: string };
  depths?: DepthSeries;
}

/** [t0, t1] in epoch ms: the run window widened to every event and sample */
export function domain(input: TimelineInput): [number, number] {
  const times = [
    ...input.events.map(eventTime),
    ...(input.window ? [Date.parse(input.window.start), Date.parse(input.window.end)] : []),
    ...(input.depths?.samples ?? []).map((s) => Date.parse(s.timestamp)),
  ].filter(Number.isFinite);
  if (times.length === 0) return [0, 1];
  return [Math.min(...times), Math.max(...times)];
}

export function timelineSvg(input: TimelineInput): { svg: string; kinds: MarkKind[] } {
  const g = GEOMETRY;
  const [t0, t1] = domain(input);
  const x = timeScale(t0, t1, g.left, g.width - g.right);
  const laneList = lanes(input.events);
  const laneIndex = new Map(laneList.map((l, i) => [l.key, i]));
  const lanesBottom = g.axis + laneList.length * g.lane;
  const height = lanesBottom + 24 + 2 * DEPTH_HEIGHT + 10;
  const tOf = (e: TimelineEvent) => (Number.isFinite(eventTime(e)) ? eventTime(e) : t0);
  const xs = input.events.map((e) => x(tOf(e)));
  const laneOf = input.events.map((e) => laneIndex.get(laneKey(e))!);
  const rows = stackRows(xs, laneOf, g.minGap, g.rows);
  const y = (i: number) => g.axis + laneOf[i] * g.lane + 14 + rows[i] * g.rowGap;
  const kinds = input.events.map(markKind);
  const e = (i: number) => input.events[i];
  const parts: string[] = [];

  // lanes: a band and a label each
  laneList.forEach((l, i) => {
    const top = g.axis + i * g.lane;
    const sub = l.kind === 'process' ? 'separate process' : l.kind === 'checkpoints' ? 'pauses (--step)' : 'in the lab process';
    parts.push(`<g class="lane" data-lane="${esc(l.key)}"><rect x="0" y="${top}" width="${g.width}" height="${g.lane}" class="band ${i % 2 ? 'odd' : 'even'}"/>` +
      `<text x="8" y="${top + 22}" class="lane-label">${esc(l.label)}</text><text x="8" y="${top + 38}" class="lane-sub">${sub}</text></g>`);
  });
  parts.push(axis(t0, t1, x, lanesBottom));

  // checkpoints (once per pause) and crashes: lines across every lane; labels that would overlap go lower
  const place = labelPlacer();
  input.events.forEach((e, i) => {
    if (kinds[i] === 'crash') {
      parts.push(`<g class="crash-line"><line x1="${xs[i]}" x2="${xs[i]}" y1="${g.axis}" y2="${lanesBottom}"/>` +
        `<text x="${xs[i] + 6}" y="${g.axis + 12}">✖ crash: ${esc(e.process ?? e.source)} exit ${esc(e.exitCode)}</text></g>`);
    } else if (e.source === 'checkpoint' && e.status === 'waiting') {
      const label = String(e.checkpoint);
      const nearEnd = xs[i] > g.width - g.right - 120; // label on the left near the right edge
      const from = nearEnd ? xs[i] - 6 - textWidth(label) : xs[i] + 4;
      const level = place(laneOf[i], from, textWidth(label));
      const text = level === null ? '' : `<text x="${nearEnd ? xs[i] - 6 : xs[i] + 4}" y="${y(i) + 20 + level * 11}"${nearEnd ? ' text-anchor="end"' : ''}>${esc(label)}</text>`;
      parts.push(`<g class="cp-line"><line x1="${xs[i]}" x2="${xs[i]}" y1="${g.axis}" y2="${lanesBottom}"/>${text}</g>`);
    }
  });

  // journeys: one connector per hop, in the message's colour; a wait in one lane (a delay queue's
  // TTL, a redelivery after a crash) is a straight line labelled with its length
  const placeWait = labelPlacer();
  for (const j of journeys(input.events)) {
    const hue = hash(j.messageId) % 360;
    for (const [a, b] of j.hops) {
      const attrs = `class="journey" data-message="${esc(j.messageId)}" stroke="hsl(${hue} 55% 40%)"`;
      if (laneOf[a] !== laneOf[b]) {
        const mid = (xs[a] + xs[b]) / 2;
        parts.push(`<path ${attrs} d="M${xs[a]},${y(a)} C${mid},${y(a)} ${mid},${y(b)} ${xs[b]},${y(b)}"/>`);
      } else if (xs[b] - xs[a] >= 40) {
        const long = `${e(a).messageId} waits ${formatMs(tOf(e(b)) - tOf(e(a)))}`;
        const label = [long, formatMs(tOf(e(b)) - tOf(e(a)))].find((t) => textWidth(t) + 8 <= xs[b] - xs[a]);
        const mid = (xs[a] + xs[b]) / 2;
        // above the lane's marks, else along its bottom edge, else no label (hover still tells)
        const level = label ? placeWait(laneOf[a], mid - textWidth(label) / 2, textWidth(label)) : null;
        const ty = level === 0 ? Math.min(y(a), y(b)) - 3 : g.axis + (laneOf[a] + 1) * g.lane - 3;
        parts.push(`<path ${attrs} d="M${xs[a]},${y(a)} L${xs[b]},${y(b)}"/>` +
          (level !== null ? `<text class="wait" x="${mid}" y="${ty}">${esc(label)}</text>` : ''));
      }
    }
  }

  // one mark per event: the count equals the JSON's events
  input.events.forEach((e, i) => {
    const tip = Object.entries(e).filter(([k, v]) => k !== 'line' && v !== undefined).map(([k, v]) => `${k}=${v}`).join('\n');
    const t = formatMs(tOf(e) - t0);
    parts.push(`<g class="ev k-${kinds[i]}" data-i="${i}" data-lane="${esc(laneKey(e))}" data-kind="${kinds[i]}"` +
      `${e.messageId ? ` data-message="${esc(e.messageId)}"` : ''} transform="translate(${xs[i].toFixed(1)},${y(i)})">` +
      `<title>${esc(`+${t}\n${tip}`)}</title>${shape(kinds[i])}</g>`);
  });

  parts.push(`<g transform="translate(0,${lanesBottom + 20})">${depthChart(input.depths, 'ready', x, g)}</g>`);
  parts.push(`<g transform="translate(0,${lanesBottom + 20 + DEPTH_HEIGHT})">${depthChart(input.depths, 'messages', x, g)}</g>`);
  const svg = `<svg class="timeline" viewBox="0 0 ${g.width} ${height}" width="${g.width}" height="${height}" role="img" ` +
    `aria-label="timeline of the run: ${laneList.length} lanes, ${input.events.length} events">${parts.join('\n')}</svg>`;
  return { svg, kinds };
}

function axis(t0: number, t1: number, x: (t: number) => number, bottom: number): string {
  const step = tickStep(t1 - t0, 12);
  const out = [`<text x="8" y="16" class="axis-title">time since start</text>`];
  for (let ms = 0; ms <= t1 - t0 + 1e-6; ms += step) {
    const px = x(t0 + ms).toFixed(1);
    out.push(`<line class="tick" x1="${px}" x2="${px}" y1="22" y2="${bottom}"/><text class="tick-label" x="${px}" y="16">${formatMs(ms)}</text>`);
  }
  return `<g class="axis">${out.join('')}</g>`;
}

/** about how wide a 10–11 px label is */
const textWidth = (t: string) => t.length * 6;

/** per lane, up to two label levels; null when both are taken where the label would go */
function labelPlacer() {
  const ends = new Map<string, number>();
  return (lane: number, from: number, width: number): number | null => {
    for (const level of [0, 1]) {
      const k = `${lane}:${level}`;
      if ((ends.get(k) ?? -Infinity) + 4 <= from) {
        ends.set(k, from + width);
        return level;
      }
    }
    return null;
  };
}

function hash(s: string): number {
  let h = 7;
  for (const ch of s) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h;
}
