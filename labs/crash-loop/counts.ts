/**
 * The counts crash-loop expects per delivery (src/kit/counts.ts reads them as the broker sent
 * them: a number or 'absent'). Pure: unit-tested beside it.
 */
import type { Count } from '../../src/kit/index.js';

/**
 * the counts a message carries on deliveries 1 … limit + 1 when each delivery ends in a failure the
 * broker counts (a crash): absent on the first, then 1, 2, … (measured on 4.3.6 and 3.10.8)
 */
export const failedDeliveryCounts = (limit: number): Count[] => [
  'absent',
  ...Array.from({ length: limit }, (_, i) => i + 1),
];

/** the same for a header the broker does not send: absent every time */
export const absentCounts = (limit: number): Count[] => Array.from({ length: limit + 1 }, () => 'absent' as const);
