/**
 * Test-only faults: MQLAB_FAULT=<lab>:<fault>[,<lab>:<fault>] turns on a deliberately broken
 * variant of a lab, so a test can show each of its checks failing. Read in one place (here);
 * a lab asks `ctx.fault(name)` and never reads the environment itself.
 */
import { UsageError } from './errors.js';

/** the faults named for `lab` in `raw` (the MQLAB_FAULT value); a malformed entry is a usage error */
export function faultsFor(lab: string, raw: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const entry of (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z0-9-]+):([a-z0-9-]+)$/.exec(entry);
    if (!m) throw new UsageError(`MQLAB_FAULT entry '${entry}' is not <lab>:<fault>`, 'e.g. MQLAB_FAULT=order-timeout:no-status-guard, or unset it');
    if (m[1] === lab) out.add(m[2]);
  }
  return out;
}
