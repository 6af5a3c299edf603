/**
 * The flows of a run as the graph draws them, from its events as they happen: a process that
 * publishes to a queue (producer → work; retry-dlq's consumer → orders.dlq, "the consumer publishes
 * to the DLQ itself") and a queue that delivers to a process (work → consumer). Only what a process
 * did: a letter the broker dead-letters is a dead-letter route already (graph.ts), and a status that
 * says the message was rejected is the broker's doing, not a publish. A sender left of an exchange
 * column gets its flows as note lines (`→ work`): an arrow to the queue would cross the exchanges.
 */
import { laneKey, type TimelineEvent } from './html-layout.js';
import { processId, queueId, type GraphEdge } from './graph.js';
import { statusQueue } from './steps.js';

const RECEIPT = /receiv|deliver|consum/;
/** a status that says the process sent the message somewhere (retry_confirmed, poison_to_dlq, published) */
const PUBLISHES = /publish|confirm|sent|_to_/;
/** the broker moved it (a reject, an expiry): not a publish of the process */
const BROKERS = /reject|expired|dead.?letter|requeue|nack/;

export function flowEdges(events: readonly TimelineEvent[], queues: readonly string[]): GraphEdge[] {
  const known = new Set(queues);
  const out: GraphEdge[] = [];
  const add = (from: string, to: string, label: string) => {
    if (!out.some((e) => e.from === from && e.to === to)) out.push({ from, to, kind: 'flow', label });
  };
  for (const e of events) {
    if (e.source === 'checkpoint' || e.source === 'replay-gate') continue;
    const lane = processId(e.process ?? laneKey(e));
    const status = (e.status ?? '').toLowerCase();
    if (RECEIPT.test(status)) {
      const q = [e.queue, e.destination].find((v) => v !== undefined && known.has(v));
      if (q) add(queueId(q), lane, `${q} delivers to ${lane.slice(2)}`);
      continue;
    }
    if (!PUBLISHES.test(status) || BROKERS.test(status)) continue;
    // the queue the status names (poison_to_dlq) over the event's destination (often where the message came from)
    const q =
      statusQueue(status, [...queues]) ?? [e.destination, e.target].find((v) => v !== undefined && known.has(v));
    if (q) add(lane, queueId(q), `${lane.slice(2)} publishes to ${q}`);
  }
  return out;
}
