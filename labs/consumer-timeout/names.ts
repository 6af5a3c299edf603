/**
 * consumer-timeout's queues (--namespace prefixes them) and its policy: two quorum queues and one
 * classic queue, each with the same consumer timeout.
 *
 *   held     (quorum)  a consumer holds a delivery past the timeout, then another takes the message
 *   ignored  (quorum)  a consumer that ignores the broker's cancel; a second message follows
 *   classic  (classic) a consumer holds a delivery past the same timeout
 *
 * The timeout is the policy key `consumer-timeout` (from 3.12.0; 4.3 refuses the x-consumer-timeout
 * argument on a classic queue). 3.10 has only the broker-wide `consumer_timeout` (lab.ts).
 */
import type { Names, PolicySpec, Topology } from '../../src/kit/index.js';

export const names = (n: Names) => ({
  held: n.q('consumer-timeout.held'),
  ignored: n.q('consumer-timeout.ignored'),
  classic: n.q('consumer-timeout.classic'),
  policy: n.p('consumer-timeout'),
});
export type TimeoutNames = ReturnType<typeof names>;

export function topology(n: Names): Topology {
  const name = names(n);
  return { queues: [{ name: name.held }, { name: name.ignored }, { name: name.classic, type: 'classic' }] };
}

/** the consumer-timeout policy on the lab's three queues (apply-to queues: both types) */
export function timeoutPolicy(n: Names, timeoutMs: number): PolicySpec {
  const name = names(n);
  const one = (q: string) => n.exact(q).slice(1, -1);
  return {
    name: name.policy,
    pattern: `^(?:${[name.held, name.ignored, name.classic].map(one).join('|')})$`,
    definition: { 'consumer-timeout': timeoutMs },
    applyTo: 'queues',
  };
}
