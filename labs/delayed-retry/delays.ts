/**
 * The delays RabbitMQ 4.3 documents for a quorum queue's native delayed retry, and the gap
 * verdicts. Pure: unit-tested beside it.
 *
 *   delay = min(delayed-retry-min × delivery-count, delayed-retry-max)
 *
 * basic.reject(requeue) counts a failed delivery (delivery-count + 1), so its delay grows;
 * basic.nack(requeue) counts only acquired-count, so delivery-count stays 0 and the message waits
 * the minimum every time ("not all return types will cause the message to be delayed longer than
 * the minimum", quorum-queues docs).
 */
type ReturnKind = 'reject' | 'nack';

/** the schedule both sides run: 4 returns, 200 ms growing to a 600 ms cap (reject) */
export const SPEC: RetrySpec = { minMs: 200, maxMs: 600, returns: 4 };
/** how long the max-length queue holds its one returned message (long enough for 1 s statistics samples) */
export const HOLD_MS = 3000;

export interface RetrySpec {
  minMs: number;
  maxMs: number;
  /** returns before the consumer finally acks */
  returns: number;
}

/** the wait before each redelivery, in order, for `returns` returns of one kind */
export function expectedDelays(s: RetrySpec, kind: ReturnKind): number[] {
  return Array.from({ length: s.returns }, (_, i) => Math.min(s.minMs * (kind === 'reject' ? i + 1 : 1), s.maxMs));
}

/** the TTL ladder the same schedule needs: one delay queue per distinct delay */
export const ladderTiers = (s: RetrySpec): number[] => [...new Set(expectedDelays(s, 'reject'))];

interface GapVerdict {
  /** gaps shorter than the delay: the broker handed the message back early */
  early: number;
  /** the largest (gap − delay), ms */
  maxLateMs: number;
  /** mean |gap − delay|, ms (the "accuracy" printed side by side) */
  meanErrorMs: number;
}

export function judgeGaps(gaps: number[], expected: number[]): GapVerdict {
  const diffs = expected.map((e, i) => (gaps[i] ?? Number.NaN) - e);
  const known = diffs.filter((d) => Number.isFinite(d));
  return {
    early: diffs.filter((d) => !(d >= 0)).length,
    maxLateMs: known.length ? Math.max(...known) : 0,
    meanErrorMs: known.length ? Math.round(known.reduce((a, d) => a + Math.abs(d), 0) / known.length) : 0,
  };
}
