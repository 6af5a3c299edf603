/**
 * --gate-ms, the option of every lab whose consumer has replay gates (src/replay-gate.ts).
 * Imported by the registry (metadata only), so it stays tiny and loads nothing else.
 */
import { UsageError } from './errors.js';

export const GATE_MS = { default: 0, max: 60_000 };

/** --gate-ms: how long each replay-gate checkpoint holds in the consumer processes (0: released at once) */
export function parseGateMs(raw: string): number {
  const v = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(v) || v > GATE_MS.max) {
    throw new UsageError(`--gate-ms must be a whole number of milliseconds from 0 to ${GATE_MS.max}, got '${raw}'`);
  }
  return v;
}
