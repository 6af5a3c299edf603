/**
 * Test-only fault injection, so an integration test can show each check of a lab failing.
 * MQLAB_FAULT=<lab>:<fault>[,<lab>:<fault>…] makes `<lab>` run a deliberately broken variant
 * (e.g. at-most-once-drop:keep-binding), one its labs/<lab>/meta.ts declares. Read here and nowhere
 * else: the engine loads the lab's variants.ts then (src/engine/variants.ts), a child process when it
 * asks rt.steps. Never set it outside tests.
 */
import { UsageError } from '../core/errors.js';

export const FAULT_ENV = 'MQLAB_FAULT';

/** what faultsFor needs of a lab: its name and its declared variants */
interface FaultsOf {
  name: string;
  faults: Readonly<Record<string, unknown>>;
}

/** every <lab>:<fault> entry of MQLAB_FAULT; a malformed one is a usage error */
export function faultEntries(env: NodeJS.ProcessEnv = process.env): { lab: string; fault: string }[] {
  return (env[FAULT_ENV] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const m = /^([a-z0-9-]+):([a-z0-9-]+)$/.exec(entry);
      if (!m?.[1] || !m[2])
        throw new UsageError(
          `${FAULT_ENV} entry '${entry}' is not <lab>:<fault>`,
          `e.g. ${FAULT_ENV}=order-timeout:no-status-guard, or unset it`,
        );
      return { lab: m[1], fault: m[2] };
    });
}

/**
 * the faults MQLAB_FAULT names for `lab`; one naming a variant `lab` does not declare is a usage
 * error listing the declared ones (a typo must not run the correct lab)
 */
export function faultsFor(lab: FaultsOf, env: NodeJS.ProcessEnv = process.env): Set<string> {
  const declared = Object.keys(lab.faults);
  const out = new Set<string>();
  for (const { fault } of faultEntries(env).filter((e) => e.lab === lab.name)) {
    if (!declared.includes(fault)) {
      throw new UsageError(
        `${FAULT_ENV} names '${fault}', which is not a broken variant of ${lab.name}`,
        declared.length
          ? `${lab.name} declares: ${declared.join(', ')}`
          : `${lab.name} declares none: unset ${FAULT_ENV}`,
      );
    }
    out.add(fault);
  }
  return out;
}

/** an MQLAB_FAULT entry for a lab that does not exist is a usage error too (the variant would never run) */
export function refuseUnknownLabs(labs: readonly string[], env: NodeJS.ProcessEnv = process.env): void {
  const unknown = [...new Set(faultEntries(env).map((e) => e.lab))].filter((lab) => !labs.includes(lab));
  if (unknown.length)
    throw new UsageError(
      `${FAULT_ENV} names the lab(s) ${unknown.join(', ')}, which do not exist`,
      'see `mqlab list` for the names, or unset it',
    );
}
