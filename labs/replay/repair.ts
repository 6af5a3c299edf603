/**
 * The replay tool's pure decisions: what the repaired payload is (taken from the approval, never
 * guessed) and whether the source was removed only after the repaired copy was confirmed.
 */

/** The amount an approval vouches for: 'verified order amount=10' → '10'; null when it names none. */
export function approvedAmount(reason: string): string | null {
  const m = /(?:^|\s)amount=(\d+(?:\.\d+)?)(?=\s|$)/.exec(reason);
  return m?.[1] ?? null;
}

/**
 * The quarantined payload with its amount field replaced by the approved amount
 * ('amount=invalid' + 'verified order amount=10' → 'amount=10'). Null when the approval names
 * no amount or the payload has no amount field: then there is nothing approved to replay.
 */
export function repairPayload(original: string, approvalReason: string): string | null {
  const amount = approvedAmount(approvalReason);
  const field = /(^|[\s&;])amount=[^\s&;]*/;
  if (amount === null || !field.test(original)) return null;
  return original.replace(field, `$1amount=${amount}`);
}

/** The steps of a replay, in the order the lab observed them. */
export type ReplayStep =
  'approval-read' | 'repair-confirmed' | 'source-acked' | 'receiver-got' | 'audit-verified' | 'receiver-acked';

/**
 * The source was removed after the confirm, as the broker showed it: just before the original was
 * acked the work queue already held the repaired copy (its depth, read from the broker, with no
 * consumer on it yet), and after the tool's channel was done the source queue held nothing.
 */
export function removedAfterConfirm(workDepthBeforeAck: number | null, sourceLeft: number): boolean {
  return workDepthBeforeAck !== null && workDepthBeforeAck >= 1 && sourceLeft === 0;
}
