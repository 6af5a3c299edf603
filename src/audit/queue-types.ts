/**
 * What each queue type does with policy keys and queue arguments, per RabbitMQ line, as the source
 * says (deps/rabbit/src at the tags named) and as measured on 4.3.6 and 3.10.8 (test/audit-import.int.test.ts):
 *
 * - A policy holding a key the queue's type lists as unsupported does not apply to that queue at all
 *   (`rabbit_queue_type:is_policy_applicable`, the `unsupported_policies` capability of
 *   rabbit_classic_queue / rabbit_quorum_queue / rabbit_stream_queue, v3.10.8 … v4.3.5): the next
 *   matching policy applies instead.
 * - Where a queue argument and its policy both set a key, each queue type resolves it its own way
 *   (`args_policy_lookup(Key, Resolve, Q)`, rabbit_queue_type_util.erl): see RESOLVE.
 * - An `x-` argument another queue type knows but this one does not is refused at declare
 *   (PRECONDITION_FAILED "invalid arg … of queue type", `check_arguments_key`, rabbit_amqqueue.erl).
 */
import { atLeast, type Version } from './target.js';

type QueueType = 'classic' | 'quorum' | 'stream';

const HA = ['ha-mode', 'ha-params', 'ha-sync-mode', 'ha-promote-on-shutdown', 'ha-promote-on-failure'];

const refusedKeys = new Map<string, readonly string[]>();

/** policy keys that make a policy inapplicable to the type (the capability lists at v3.10.8 … v4.3.5, with their boundaries) */
export function unsupportedPolicyKeys(type: string, v: Version): readonly string[] {
  const id = `${type} ${v.join('.')}`;
  let keys = refusedKeys.get(id);
  if (!keys) refusedKeys.set(id, (keys = listRefused(type, v)));
  return keys;
}

function listRefused(type: string, v: Version): readonly string[] {
  switch (type) {
    case 'classic':
      // queue-leader-locator left the list in 4.0.0; the in-memory keys joined in 3.12.7
      return [
        'max-age',
        'stream-max-segment-size-bytes',
        'initial-cluster-size',
        'delivery-limit',
        'dead-letter-strategy',
        ...(atLeast(v, '4.0.0') ? [] : ['queue-leader-locator']),
        ...(atLeast(v, '3.12.7') ? ['max-in-memory-length', 'max-in-memory-bytes', 'target-group-size'] : []),
      ];
    case 'quorum':
      // single-active-consumer left the list in 4.2.0
      return [
        'max-priority',
        'queue-mode',
        ...(atLeast(v, '4.2.0') ? [] : ['single-active-consumer']),
        ...HA,
        'queue-master-locator',
        'max-age',
        'stream-max-segment-size-bytes',
        'initial-cluster-size',
      ];
    case 'stream':
      return [
        'expires',
        'message-ttl',
        'dead-letter-exchange',
        'dead-letter-routing-key',
        'max-length',
        'max-in-memory-length',
        'max-in-memory-bytes',
        'max-priority',
        'overflow',
        'queue-mode',
        ...(atLeast(v, '4.2.0') ? [] : ['single-active-consumer']),
        'delivery-limit',
        ...HA,
        'queue-master-locator',
        'dead-letter-strategy',
      ];
    default:
      return [];
  }
}

/** how a key set both as an argument and by the policy resolves: the policy's, the argument's, the lower */
type Resolve = 'argument' | 'policy' | 'min' | 'delivery-limit';

/**
 * Per queue type and key (rabbit_amqqueue_process `process_args_policy` for classic queues,
 * rabbit_quorum_queue `gather_policy_config` / `dead_letter_handler` for quorum queues):
 * classic: expires, message-ttl, max-length(-bytes) the lower; dead-letter keys, overflow, queue-mode
 * the argument. quorum: dead-letter keys the argument; overflow the policy (v3.10.8 L252, v4.3.5
 * L429); max-length(-bytes), message-ttl the lower; expires the policy before 4.0, the lower from
 * 4.0.0; delivery-limit the lower before 4.0, from 4.0.0 `resolve_delivery_limit` (a negative value
 * on either side: the larger, else the lower).
 */
export function resolveRule(type: string, key: string, v: Version): Resolve | null {
  const min = ['message-ttl', 'max-length', 'max-length-bytes'];
  if (type === 'classic') {
    if (min.includes(key) || key === 'expires') return 'min';
    if (['dead-letter-exchange', 'dead-letter-routing-key', 'overflow', 'queue-mode', 'queue-version'].includes(key))
      return 'argument';
    return null;
  }
  if (type === 'quorum') {
    if (['dead-letter-exchange', 'dead-letter-routing-key', 'dead-letter-strategy'].includes(key)) return 'argument';
    if (key === 'overflow' || key === 'delayed-retry-type') return 'policy';
    if (min.includes(key) || ['consumer-disconnected-timeout', 'delayed-retry-min', 'delayed-retry-max'].includes(key))
      return 'min';
    if (key === 'expires') return atLeast(v, '4.0.0') ? 'min' : 'policy';
    if (key === 'delivery-limit') return atLeast(v, '4.0.0') ? 'delivery-limit' : 'min';
    return null;
  }
  return null;
}

/** the x- arguments each type accepts (the `queue_arguments` capability, v4.3.5; the same keys matter on 3.10.8) */
const ARGUMENTS: Record<QueueType, readonly string[]> = {
  classic: [
    'x-expires',
    'x-message-ttl',
    'x-dead-letter-exchange',
    'x-dead-letter-routing-key',
    'x-max-length',
    'x-max-length-bytes',
    'x-max-priority',
    'x-overflow',
    'x-queue-mode',
    'x-queue-version',
    'x-single-active-consumer',
    'x-queue-type',
    'x-queue-master-locator',
    'x-queue-leader-locator',
  ],
  quorum: [
    'x-dead-letter-exchange',
    'x-dead-letter-routing-key',
    'x-dead-letter-strategy',
    'x-expires',
    'x-max-length',
    'x-max-length-bytes',
    'x-max-in-memory-length',
    'x-max-in-memory-bytes',
    'x-overflow',
    'x-single-active-consumer',
    'x-queue-type',
    'x-quorum-initial-group-size',
    'x-delivery-limit',
    'x-message-ttl',
    'x-queue-leader-locator',
  ],
  stream: [
    'x-queue-type',
    'x-max-length-bytes',
    'x-max-age',
    'x-stream-max-segment-size-bytes',
    'x-initial-cluster-size',
    'x-queue-leader-locator',
    'x-stream-filter-size-bytes',
  ],
};
const KNOWN = new Set(Object.values(ARGUMENTS).flat());

/** the arguments of a queue its type refuses at declare: known to another type, not to this one */
export function refusedArguments(type: string, args: Record<string, unknown>): string[] {
  const own = ARGUMENTS[type as QueueType];
  if (!own) return [];
  return Object.keys(args).filter((k) => KNOWN.has(k) && !own.includes(k));
}
