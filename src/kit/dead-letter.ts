/**
 * Dead-letter policies and what the management statistics say about dead letters a quorum
 * queue holds (at-least-once dead lettering). Shared by the labs that switch the strategy.
 */
import type { Capabilities } from '../broker/capabilities.js';
import type { QueueStats } from '../broker/management.js';
import type { PolicySpec } from '../broker/topology.js';
import { text } from '../core/text.js';

/** the max-length a dead-letter policy puts on its source queue: the bound overflow=reject-publish enforces */
export const POLICY_MAX_LENGTH = 100;

/** 'default' leaves dead-letter-strategy out of the policy: the broker's at-most-once */
export type DeadLetterStrategy = 'at-least-once' | 'at-most-once' | 'default';

interface DeadLetterPolicyInput {
  name: string;
  /** anchored regex for the source queue */
  pattern: string;
  dlx: string;
  routingKey: string;
  strategy: DeadLetterStrategy;
  /**
   * false: the policy names no overflow, so the queue keeps its default drop-head, with which the
   * broker falls back from at-least-once to at-most-once (rabbit_quorum_queue dlh/5, 3.10.0 on; it
   * logs a warning, clients see nothing). Default true
   */
  rejectPublish?: boolean | undefined;
}

/**
 * The labs' dead-letter policy (`rabbitmqctl set_policy`): dead-letter exchange and routing key, overflow reject-publish and
 * max-length 100 (at-least-once needs reject-publish, else the broker falls back to at-most-once,
 * silently for the client, with a warning in its own log),
 * apply-to as the broker knows it (quorum_queues from 3.12, else queues).
 */
export function deadLetterPolicy(
  p: DeadLetterPolicyInput,
  caps: Pick<Capabilities, 'policyApplyToQuorumQueues'>,
): PolicySpec {
  return {
    name: p.name,
    pattern: p.pattern,
    applyTo: caps.policyApplyToQuorumQueues ? 'quorum_queues' : 'queues',
    definition: {
      'dead-letter-exchange': p.dlx,
      'dead-letter-routing-key': p.routingKey,
      ...(p.strategy === 'default' ? {} : { 'dead-letter-strategy': p.strategy }),
      ...(p.rejectPublish === false ? {} : { overflow: 'reject-publish' }),
      'max-length': POLICY_MAX_LENGTH,
    },
  };
}

/** the strategy a queue's effective policy gives it: at-most-once unless the policy says otherwise */
export function strategyInEffect(definition: Record<string, unknown> | null): string {
  return text(definition?.['dead-letter-strategy'], 'at-most-once');
}

/** a policy as one comparable value: pattern, apply-to, then the definition sorted by key */
export function policyLine(p: { pattern: string; applyTo: string; definition: Record<string, unknown> }): string {
  const def = Object.keys(p.definition)
    .sort()
    .map((k) => `${k}=${String(p.definition[k])}`);
  return [`pattern=${p.pattern}`, `apply-to=${p.applyTo}`, ...def].join(' ');
}

/**
 * Letters the source keeps for its dead-letter worker. They count in `messages` but in neither
 * `ready` nor `unacked`: adding those two would say the queue is empty.
 */
export function heldLetters(s: Pick<QueueStats, 'messages' | 'ready' | 'unacked'>): number {
  return s.messages - s.ready - s.unacked;
}

/** a queue's counts as one value, messages=1 ready=0 unacked=0 (list_queues' messages, messages_ready, messages_unacknowledged) */
export function statsLine(s: Pick<QueueStats, 'messages' | 'ready' | 'unacked'> | null): string {
  return s ? `messages=${s.messages} ready=${s.ready} unacked=${s.unacked}` : 'no statistics';
}
