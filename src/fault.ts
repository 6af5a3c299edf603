/**
 * Test-only fault injection, so an integration test can show each check of a lab failing.
 * MQLAB_FAULT=<lab>:<fault>[,<lab>:<fault>…] makes `<lab>` run a deliberately broken variant
 * (e.g. at-most-once-drop:keep-binding). Read here and nowhere else: the runner gives a lab
 * ctx.fault(name), a child process gets rt.fault(name). Never set it outside tests.
 */
import { UsageError } from './errors.js';

export const FAULT_ENV = 'MQLAB_FAULT';

/** the faults MQLAB_FAULT names for `lab`; a malformed entry is a usage error (a typo must not run the correct lab) */
export function faultsFor(lab: string, env: NodeJS.ProcessEnv = process.env): Set<string> {
  const out = new Set<string>();
  for (const entry of (env[FAULT_ENV] ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z0-9-]+):([a-z0-9-]+)$/.exec(entry);
    if (!m) throw new UsageError(`${FAULT_ENV} entry '${entry}' is not <lab>:<fault>`, `e.g. ${FAULT_ENV}=order-timeout:no-status-guard, or unset it`);
    if (m[1] === lab && m[2] !== undefined) out.add(m[2]);
  }
  return out;
}
