/**
 * The --html timeline as one inline SVG: a time axis, one lane per process, one mark per event
 * (its key=value fields in a <title>), message journeys as connectors, checkpoints and crashes as
 * lines across the lanes, and the queue-depth chart on the same time axis below.
 */
import type { DepthSeries } from '../broker/depth-sampler.js';
import {
  eventTime,
  formatMs,
  journeys,
  laneKey,
  lanes,
  markKind,
  stackRows,
  tickStep,
  timeScale,
  type MarkKind,
  type TimelineEvent,
} from './html-layout.js';
import { esc, shape } from './html-marks.js';
import { depthChart, DEPTH_HEIGHT } from './html-depths.js';
import { must } from '../core/must.js';

const GEOMETRY = { width: 1200, left: 170, right: 40, axis: 34, lane: 60, rows: 3, rowGap: 12, minGap: 7 };

export interface TimelineInput {
  events: TimelineEvent[];
  window?: { start: string; end: string } | undefined;
  depths?: DepthSeries | undefined;
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
  const placed = input.events.map((ev) => ({
    ev,
    x: x(tOf(ev)),
    lane: must(laneIndex.get(laneKey(ev)), `the lane ${laneKey(ev)}`),
    kind: markKind(ev),
  }));
  const rows = stackRows(
    placed.map((p) => p.x),
    placed.map((p) => p.lane),
    g.minGap,
    g.rows,
  );
  /** one per event, in the events' order: where its mark goes */
  const marks = placed.map((p, i) => ({
    ...p,
    y: g.axis + p.lane * g.lane + 14 + must(rows[i], `the stack row of event ${i}`) * g.rowGap,
  }));
  const mark = (i: number) => must(marks[i], `timeline event ${i}`);
  const kinds = marks.map((m) => m.kind);
  const parts: string[] = [];

  // lanes: a band and a label each
  laneList.forEach((l, i) => {
    const top = g.axis + i * g.lane;
    const sub =
      l.kind === 'process' ? 'separate process' : l.kind === 'checkpoints' ? 'pauses (--step)' : 'in the lab process';
    parts.push(
      `<g class="lane" data-lane="${esc(l.key)}"><rect x="0" y="${top}" width="${g.width}" height="${g.lane}" class="band ${i % 2 ? 'odd' : 'even'}"/>` +
        `<text x="8" y="${top + 22}" class="lane-label">${esc(l.label)}</text><text x="8" y="${top + 42}" class="lane-sub">${sub}</text></g>`,
    );
  });
  parts.push(axis(t0, t1, x, lanesBottom));

  // checkpoints (once per pause) and crashes: lines across every lane; labels that would overlap go lower
  const place = labelPlacer();
  for (const { ev: e, x: px, y: py, lane, kind } of marks) {
    if (kind === 'crash') {
      const label = `✖ crash: ${e.process ?? e.source} exit ${e.exitCode}`;
      // on the line's left where it would run off the right edge
      const left = px + 6 + textWidth(label) * 1.1 > g.width;
      parts.push(
        `<g class="crash-line"><line x1="${px}" x2="${px}" y1="${g.axis}" y2="${lanesBottom}"/>` +
          `<text x="${left ? px - 6 : px + 6}" y="${g.axis + 14}"${left ? ' text-anchor="end"' : ''}>${esc(label)}</text></g>`,
      );
    } else if (e.source === 'checkpoint' && e.status === 'waiting') {
      const label = String(e.checkpoint);
      const nearEnd = px > g.width - g.right - 120; // label on the left near the right edge
      const from = nearEnd ? px - 6 - textWidth(label) : px + 4;
      const level = place(lane, from, textWidth(label));
      const text =
        level === null
          ? ''
          : `<text x="${nearEnd ? px - 6 : px + 4}" y="${py + 22 + level * 17}"${nearEnd ? ' text-anchor="end"' : ''}>${esc(label)}</text>`;
      parts.push(`<g class="cp-line"><line x1="${px}" x2="${px}" y1="${g.axis}" y2="${lanesBottom}"/>${text}</g>`);
    }
  }

  // journeys: one connector per hop, in the message's colour; a wait in one lane (a delay queue's
  // TTL, a redelivery after a crash) is a straight line labelled with its length
  const placeWait = labelPlacer();
  for (const j of journeys(input.events)) {
    const hue = hash(j.messageId) % 360;
    for (const [ia, ib] of j.hops) {
      const [a, b] = [mark(ia), mark(ib)];
      const attrs = `class="journey" data-message="${esc(j.messageId)}" stroke="hsl(${hue} 55% 40%)"`;
      if (a.lane !== b.lane) {
        const mid = (a.x + b.x) / 2;
        parts.push(`<path ${attrs} d="M${a.x},${a.y} C${mid},${a.y} ${mid},${b.y} ${b.x},${b.y}"/>`);
      } else {
        // a wait is labelled with its basis: delivery → delivery (as the retry checks measure it, over
        // the span from the previous delivery, whatever was logged between) when b is a redelivery of
        // the message in this lane, else the time between the two logged events
        const basis = waitBasis(input.events, ia, ib, tOf);
        const from = mark(basis.from);
        const span = b.x - from.x;
        const label = span >= 40 ? [basis.long, basis.short].find((t) => textWidth(t) + 8 <= span) : undefined;
        const mid = (from.x + b.x) / 2;
        // above the lane's marks, else along its bottom edge, else no label (hover still tells)
        const level = label ? placeWait(a.lane, mid - textWidth(label) / 2, textWidth(label)) : null;
        const ty = level === 0 ? Math.min(from.y, b.y) - 3 : g.axis + (a.lane + 1) * g.lane - 3;
        // the wait's length always on the path (data-wait, and its hover title): the label only where it fits
        parts.push(
          `<path ${attrs} data-wait="${esc(basis.short)}" d="M${a.x},${a.y} L${b.x},${b.y}"><title>${esc(basis.long)}</title></path>` +
            (label && level !== null ? `<text class="wait" x="${mid}" y="${ty}">${esc(label)}</text>` : ''),
        );
      }
    }
  }

  // one mark per event: the count equals the JSON's events
  marks.forEach(({ ev: e, x: px, y: py, kind }, i) => {
    const tip = Object.entries(e)
      .filter(([k, v]) => k !== 'line' && v !== undefined)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n');
    const t = formatMs(tOf(e) - t0);
    parts.push(
      `<g class="ev k-${kind}" data-i="${i}" data-lane="${esc(laneKey(e))}" data-kind="${kind}"` +
        `${e.messageId ? ` data-message="${esc(e.messageId)}"` : ''} transform="translate(${px.toFixed(1)},${py})">` +
        `<title>${esc(`+${t}\n${tip}`)}</title>${shape(kind)}</g>`,
    );
  });

  parts.push(`<g transform="translate(0,${lanesBottom + 20})">${depthChart(input.depths, 'ready', x, g)}</g>`);
  parts.push(
    `<g transform="translate(0,${lanesBottom + 20 + DEPTH_HEIGHT})">${depthChart(input.depths, 'messages', x, g)}</g>`,
  );
  // data-t0/t1/x0/x1: the time axis, so the bench's cursor can mark the current step
  const svg =
    `<svg class="timeline" viewBox="0 0 ${g.width} ${height}" width="${g.width}" height="${height}" role="img" ` +
    `data-t0="${t0}" data-t1="${t1}" data-x0="${g.left}" data-x1="${g.width - g.right}" ` +
    `aria-label="timeline of the run: ${laneList.length} lanes, ${input.events.length} events">${parts.join('\n')}</svg>`;
  return { svg, kinds };
}

/** the label of a same-lane wait ending at event ib, and what it measures */
function waitBasis(
  events: TimelineEvent[],
  ia: number,
  ib: number,
  tOf: (e: TimelineEvent) => number,
): { long: string; short: string; from: number } {
  const a = must(events[ia], 'a wait start');
  const b = must(events[ib], 'a wait end');
  if (markKind(b) === 'receive') {
    const earlier = events.filter(
      (e, i) =>
        i !== ib &&
        e.messageId === b.messageId &&
        laneKey(e) === laneKey(b) &&
        markKind(e) === 'receive' &&
        tOf(e) < tOf(b),
    );
    const prev = earlier.sort((x, y) => tOf(y) - tOf(x))[0];
    if (prev) {
      // in whole milliseconds always, as the checks print it (1440 ms, not 1.44 s)
      const ms = `${Math.round(tOf(b) - tOf(prev))} ms`;
      return {
        long: `${b.messageId}: ${ms} delivery → delivery`,
        short: `${ms} delivery → delivery`,
        from: events.indexOf(prev),
      };
    }
  }
  const ms = formatMs(tOf(b) - tOf(a));
  return { long: `${b.messageId}: ${ms} between logged events`, short: ms, from: ia };
}

function axis(t0: number, t1: number, x: (t: number) => number, bottom: number): string {
  const step = tickStep(t1 - t0, 12);
  const out = [`<text x="8" y="16" class="axis-title">time since start</text>`];
  for (let ms = 0; ms <= t1 - t0 + 1e-6; ms += step) {
    const px = x(t0 + ms).toFixed(1);
    out.push(
      `<line class="tick" x1="${px}" x2="${px}" y1="22" y2="${bottom}"/><text class="tick-label" x="${px}" y="16">${formatMs(ms)}</text>`,
    );
  }
  return `<g class="axis">${out.join('')}</g>`;
}

/** about how wide a 16 px label is */
const textWidth = (t: string) => t.length * 9.4;

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
