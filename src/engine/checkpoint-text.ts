/**
 * A checkpoint as `--step` prints it on stderr: what is about to happen, the message, and the
 * lab's queues (ready / unacked / held), fitted to the terminal's width. Plain text: the caller
 * colours the header line or not.
 */
import { countsBasis, type CheckpointView, type MessageAtCheckpoint } from '../core/checkpoint-view.js';

/** the header line, the description, the message, the facts, the table (and, at the first checkpoint, its basis) */
export function checkpointLines(v: CheckpointView, width = 100): string[] {
  const w = Math.max(60, width);
  const by = v.process ? `  (${v.process})` : '';
  const head = `── checkpoint ${v.seq}: ${v.checkpoint}${by} `;
  const out = [head + '─'.repeat(Math.max(3, Math.min(w, 100) - head.length))];
  if (v.description) out.push(...wrap(v.description, w - 2).map((l) => '  ' + l));
  if (v.message)
    for (const line of messageLines(v.message)) out.push(...wrap(line, w - 4).map((l, i) => (i ? '    ' : '  ') + l));
  const facts = Object.entries(v.facts).map(([k, val]) => `${k}=${val}`);
  if (facts.length) out.push(...wrap(facts.join('  '), w - 2).map((l) => '  ' + l));
  if (v.queues.length) {
    const qw = Math.max(5, ...v.queues.map((q) => q.queue.length));
    const n = (x: number | null, pad: number) => (x === null ? '?' : String(x)).padStart(pad);
    out.push(`  ${'queue'.padEnd(qw)}  ready  unacked  held`);
    for (const q of v.queues) {
      const here = v.message?.queue === q.queue ? '  ◀ the message waits here' : '';
      out.push(`  ${q.queue.padEnd(qw)}  ${n(q.ready, 5)}  ${n(q.unacked, 7)}  ${n(q.held, 4)}${here}`);
    }
    // how they were read: at the first pause, and whenever it is not the usual settled reading
    const reading = v.broker?.reading;
    if (v.seq === 1 || (reading !== undefined && reading !== 'settled'))
      out.push(...wrap(`(${countsBasis(reading)})`, w - 2).map((l) => '  ' + l));
  }
  const bound = v.broker?.bindings;
  if (bound)
    out.push(
      ...wrap(
        `bound now: ${bound.length ? bound.map((b) => `${tail(b.exchange)} → ${tail(b.queue)}${b.key ? ` (key ${b.key})` : ''}`).join(', ') : 'nothing from the lab’s exchanges'}`,
        w - 2,
      ).map((l) => '  ' + l),
    );
  return out;
}

/** a name's last two parts (me12.retry.dlq → retry.dlq), as the graph's notes say it */
const tail = (name: string) => name.split('.').slice(-2).join('.');

/**
 * message order-poison (01JMQ…P)  attempt=2  redelivered=true  x-delivery-count=1
 * x-death: orders.retry expired ×1, orders.work rejected ×1
 */
export function messageLines(m: MessageAtCheckpoint): string[] {
  const parts = [`message ${m.label ? `${m.label} (${m.id})` : m.id}`];
  if (m.attempt !== undefined) parts.push(`attempt=${m.attempt}`);
  if (m.redelivered !== undefined) parts.push(`redelivered=${m.redelivered}`);
  if (m.deliveryCount !== undefined) parts.push(`x-delivery-count=${m.deliveryCount}`);
  if (m.queue) parts.push(`now in ${m.queue}`);
  if (m.leftQueue) parts.push(`was in ${m.leftQueue}, gone by this reading (its TTL sent it on)`);
  const lines = [parts.join(' · ')];
  if (m.deaths)
    lines.push(
      `x-death: ${m.deaths.length ? m.deaths.map((d) => `${d.queue} ${d.reason} ×${d.count}`).join(', ') : 'none (never dead-lettered)'}`,
    );
  return lines;
}

/** words to lines of at most `width` characters (a longer word stays whole) */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}
