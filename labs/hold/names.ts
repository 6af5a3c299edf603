/**
 * The hold lab's names, its one letter, topology and the policy it applies.
 *
 *   policy me12-hold on ^me12[.]retry[.]hold$: at-least-once, reject-publish, max-length 100
 *
 *   held-event ──▶ me12.retry.hold ── reject(requeue=false) ──▶ dead-letter worker (holds it)
 *                                                                   │ re-routes on its timer
 *                                                                   ▼
 *                  me12.retry.hold.dlx (direct) ── failed ──▶ me12.retry.hold.target
 *                  (binding removed for the window, then restored)
 */
import {
  type Names,
  type Capabilities,
  type PolicySpec,
  type Topology,
  deadLetterPolicy,
} from '../../src/kit/index.js';

/** the one letter of a run: its message id and body */
export const EVENT_ID = 'held-event';
export const BODY = 'payload';
/** the header that ties a delivered letter to the run that published it */
export const RUN_HEADER = 'mqlab-run';

export const ROUTING_KEY = 'failed';

export function names(n: Names) {
  return {
    source: n.q('me12.retry.hold'),
    target: n.q('me12.retry.hold.target'),
    dlx: n.x('me12.retry.hold.dlx'),
    policy: n.p('me12-hold'),
  };
}

/** the hold policy, as `rabbitmqctl set_policy me12-hold …` would set it, with apply-to as the broker knows it */
export function holdPolicy(n: Names, caps: Pick<Capabilities, 'policyApplyToQuorumQueues'>): PolicySpec {
  const name = names(n);
  return deadLetterPolicy(
    {
      name: name.policy,
      pattern: n.exact(name.source),
      dlx: name.dlx,
      routingKey: ROUTING_KEY,
      strategy: 'at-least-once',
    },
    caps,
  );
}

/**
 * The target bound to the dead-letter exchange, as it is between runs: the lab removes the binding
 * for the window and restores it (declared here, so a first run in a fresh namespace starts bound
 * too, and a variant that keeps the binding keeps one)
 */
export function topology(n: Names): Topology {
  const name = names(n);
  return {
    exchanges: [{ name: name.dlx, type: 'direct' }],
    queues: [{ name: name.source }, { name: name.target }],
    bindings: [{ queue: name.target, exchange: name.dlx, key: ROUTING_KEY }],
  };
}
