/** Parsers for the archive tools' options (loaded with the registry: keep this file light). */
import { UsageError } from '../../src/errors.js';
import { STATUSES, type ArchiveStatus } from './topology.js';

/** --status: one of the lifecycle states, in any case */
export function parseStatus(raw: string): ArchiveStatus {
  const s = raw.trim().toUpperCase();
  if (!(STATUSES as readonly string[]).includes(s)) throw new UsageError(`invalid status '${raw}'`, `use one of ${STATUSES.join(', ')}`);
  return s as ArchiveStatus;
}

/** --limit: a whole number ≥ 1 */
export function parseLimit(raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1) throw new UsageError(`invalid limit '${raw}'`, 'use a whole number ≥ 1');
  return n;
}
