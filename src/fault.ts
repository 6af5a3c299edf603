/**
 * Test-only fault injection, so an integration test can show each check of a lab failing.
 * MQLAB_FAULT=<lab>:<fault>[,<lab>:<fault>…] makes `<lab>` run a deliberately broken variant
 * (e.g. at-most-once-drop:keep-binding). Read here and nowhere else: the runner gives a lab
 * ctx.fault(name), a child process gets rt.fault(name). Never set it outside tests.
 */
export const FAULT_ENV = 'MQLAB_FAULT';

/** the faults MQLAB_FAULT names for `lab` */
export function faultsFor(lab: string, env: NodeJS.ProcessEnv = process.env): Set<string> {
  const out = new Set<string>();
  for (const item of (env[FAULT_ENV] ?? '').split(',')) {
    const [l, f] = item.trim().split(':');
    if (l === lab && f) out.add(f);
  }
  return out;
}
