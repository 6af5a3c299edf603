/** `hold` lab options, parsed when the command line is (kept apart from the lab's code). */
import { UsageError } from '../../src/errors.js';

export const DEFAULT_RECOVER_TIMEOUT_S = 240;

/** --recover-timeout <seconds>: how long to wait for the broker's worker after the rebind */
export function parseRecoverTimeout(raw: string): number {
  const s = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(s) || s <= 0 || s > 86_400) {
    throw new UsageError(`--recover-timeout must be a number of seconds between 0 and 86400, got '${raw}'`);
  }
  return s;
}
