/**
 * Pure pieces of the `hold` lab: its names, the policy it applies, how to read a held letter
 * from the management statistics, and how to tell a broker dead-lettering from an application
 * republish by the headers of the delivered message.
 */
import type { Names } from '../../src/names.js';
import type { Capabilities } from '../../src/broker/capabilities.js';
import type { PolicySpec } from '../../src/broker/topology.js';
import { deadLetterPolicy, heldLetters, policyLine, statsLine } from '../../src/broker/dead-letter.js';
import { deadLetterHistory, firstDeath, type DeathEntry } from '../../src/broker/xdeath.js';

export const ROUTING_KEY = 'failed';
export const EVENT_ID = 'held-event';
export const BODY = 'payload';
/** the header that ties a delivered letter to the run that published it */
export const RUN_HEADER = 'mqlab-run';

export function holdNames(n: Names) {
  return {
    source: n.q('me12.retry.hold'),
    target: n.q('me12.retry.hold.target'),
    dlx: n.q('me12.retry.hold.dlx'),
    policy: n.p('me12-hold'),
  };
}

/** the seed's `rabbitmqctl set_policy me12-hold …`, with apply-to as the broker knows it */
export function holdPolicy(n: Names, caps: Pick<Capabilities, 'policyApplyToQuorumQueues'>): PolicySpec {
  const x = holdNames(n);
  return deadLetterPolicy({ name: x.policy, pattern: n.exact(x.source), dlx: x.dlx, routingKey: ROUTING_KEY, strategy: 'at-least-once' }, caps);
}

export { heldLetters, policyLine, statsLine };

export interface RepublishEvidence {
  /** the x-death entry the broker wrote when it dead-lettered the letter from the source */
  death: DeathEntry | null;
  firstDeathQueue: string | null;
  firstDeathReason: string | null;
  /** the broker dead-lettered this very message from the source, once, for a rejection */
  deadLetteredByBroker: boolean;
}

/**
 * What the delivered message's headers say about how it reached the target. The broker stamps
 * x-death (queue, reason, count) and x-first-death-* when it dead-letters; a message that the
 * application published itself to the DLX carries none of them (unless it copied them).
 */
export function republishEvidence(headers: Record<string, unknown>, source: string): RepublishEvidence {
  const death = deadLetterHistory(headers).find((e) => e.queue === source && e.reason === 'rejected') ?? null;
  const first = firstDeath(headers);
  return {
    death,
    firstDeathQueue: first.queue,
    firstDeathReason: first.reason,
    deadLetteredByBroker: death !== null && death.count === 1 && first.queue === source && first.reason === 'rejected',
  };
}
