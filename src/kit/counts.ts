/**
 * A quorum queue's x-delivery-count / x-acquired-count as the broker sent them: a number, or
 * 'absent' when the header was not there. Absent is not 0: 4.3 sends no x-delivery-count on a
 * first delivery nor after nacks only, 3.10 never sends x-acquired-count. Pure: unit-tested beside it.
 */
export type Count = number | 'absent';

/** a header value as amqplib decoded it (number) or as an event line carried it (string) */
export function readCount(v: unknown): Count {
  if (v === undefined || v === null || v === '' || v === 'absent') return 'absent';
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : 'absent';
}
