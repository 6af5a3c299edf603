/**
 * TEST ONLY: auto-ack-loss's broken variants (declared in meta.ts; MQLAB_FAULT=auto-ack-loss:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: each changes how the consumer process
 * consumes (`ConsumerSettings`, consumer-steps.ts).
 */
import type { ChildRuntime, Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import type { ConsumerSettings } from './consumer-steps.js';
import type { AckNames, Phase } from './names.js';

type Runtime = ChildRuntime<AckNames, Fault>;

/** the phase the process was started for (its --phase) */
function phaseOf(rt: Runtime): Phase {
  const at = rt.args.indexOf('--phase');
  return (at < 0 ? 'manual' : rt.args[at + 1]) as Phase;
}

export const consumer: Variants<ConsumerSettings, Fault, Runtime> = {
  'no-crash': () => ({ crashAfter: 0 }),
  'ack-manually-in-auto': (_, rt) => (phaseOf(rt) === 'auto' ? { noAck: false } : {}),
  'auto-ack-in-manual': (_, rt) => (phaseOf(rt) === 'manual' ? { noAck: true } : {}),
  'acks-after-all': () => ({ acks: true }),
};
