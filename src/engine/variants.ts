/**
 * The engine's side of a lab's broken variants (TEST ONLY, src/lab/variant.ts): a lab's variants.ts is
 * loaded only when MQLAB_FAULT names the lab, and then what the asked-for variants say is applied — the
 * steps `ctx.steps(correct)` returns, the broker handle the lab gets, the actions set off by the lab's
 * events, the topology declared, what is set up around the run. Without a fault it is all the identity,
 * and no variant's code is loaded.
 */
import type { LabMeta } from '../lab/lab.js';
import { faultsFor } from '../lab/fault.js';
import type { RunVariants } from './asked-variants.js';

export type { RunVariants };

const identity = <S>(correct: S): S => correct;

/** no variant asked for: nothing is loaded, everything is the lab's own */
const none: RunVariants = {
  topology: (t) => t,
  context: (ctx) => ({ ...ctx, steps: identity }),
  run: (_ctx, run) => run(),
};

/** the asked-for variants of the lab, loaded with what applies them (none asked: nothing is loaded) */
export async function runVariants(entry: LabMeta): Promise<RunVariants> {
  const asked = faultsFor(entry);
  if (!asked.size || !entry.variants) return none;
  const [{ variants }, { askedVariants }] = await Promise.all([entry.variants(), import('./asked-variants.js')]);
  return askedVariants(variants, asked);
}
