/**
 * What the two consumer runs showed, read from their event lines (the same lines they print
 * and --out keeps): deliveries, redeliveries, duplicates, and the crash window itself.
 */
import type { LabEvent } from '../../src/kit/index.js';

const consumerEvents = (events: LabEvent[], status: string) =>
  events.filter((e) => e.source === 'consumer' && e.fields.status === status);

/** the message ids the consumer logged with `status` (a line without a messageId names no message) */
const idsWith = (events: LabEvent[], status: string) =>
  new Set(
    consumerEvents(events, status).flatMap((e) => (e.fields.messageId === undefined ? [] : [e.fields.messageId])),
  );

interface Deliveries {
  receivedTotal: number;
  redeliveredCount: number;
  duplicatesObserved: number;
  uniqueMessageIds: number;
}

export function observeDeliveries(runs: LabEvent[][]): Deliveries {
  const all = runs.flat();
  const received = consumerEvents(all, 'received');
  return {
    receivedTotal: received.length,
    redeliveredCount: received.filter((e) => e.fields.redelivered === 'true').length,
    duplicatesObserved: consumerEvents(all, 'duplicate_skipped').length,
    uniqueMessageIds: new Set(received.map((e) => e.fields.messageId)).size,
  };
}

/**
 * The crash window: messages whose order row the database holds after the crashed run, that the
 * run logged as business_committed and then crash_injected, and never acked.
 */
export function committedNotAcked(crashedRun: LabEvent[], orderRowMessageIds: string[]): string[] {
  const committed = idsWith(crashedRun, 'business_committed');
  const crashed = idsWith(crashedRun, 'crash_injected');
  const acked = idsWith(crashedRun, 'acked');
  return orderRowMessageIds.filter((id) => committed.has(id) && crashed.has(id) && !acked.has(id));
}

/** distinct message ids a run acked */
export const ackedMessageIds = (run: LabEvent[]): string[] => [...idsWith(run, 'acked')];

interface Summary extends Deliveries {
  crashExitCode: number;
  committedNotAcked: number;
  readyAfterCrash: number;
  businessRows: number;
  processedRows: number;
}

/** the lab's one summary line (the source prints none for this demo; same style as the other labs) */
export function summaryLine(s: Summary): string {
  return (
    `consumer-crash: crashExitCode=${s.crashExitCode} committedNotAcked=${s.committedNotAcked} ` +
    `readyAfterCrash=${s.readyAfterCrash} deliveries=${s.receivedTotal} redelivered=${s.redeliveredCount} ` +
    `duplicateSkipped=${s.duplicatesObserved} businessRows=${s.businessRows} processedRows=${s.processedRows}`
  );
}
