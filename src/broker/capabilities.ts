/**
 * What the connected broker does, derived from its version (connection.serverProperties.version)
 * with the boundary the rabbitmq-server source shows (the tag named on each), and for a few of
 * them measured on the broker at hand (capability-probe.ts; `basis` says which). The one table of
 * behaviour per line, with the test that measures each cell, is docs/broker-versions.md.
 */
export type DeliveryLimitCounter = 'every-return' | 'acquired-count' | 'delivery-count';

export interface Capabilities {
  version: string;
  /** quorum queues honour x-message-ttl, expiring only at the head (3.10.0: rabbit_fifo expire) */
  quorumMessageTtl: boolean;
  /** dead-letter-strategy=at-least-once on quorum queues (3.10.0: rabbit_fifo_dlx_worker.erl) */
  atLeastOnceDeadLettering: boolean;
  /** policies can use --apply-to quorum_queues (3.12.0: rabbit_policy.erl, release notes 3.12.0) */
  policyApplyToQuorumQueues: boolean;
  /** x-delivery-limit a quorum queue gets when none is set, null: none (4.0.0: ?DEFAULT_DELIVERY_LIMIT 20) */
  defaultDeliveryLimit: number | null;
  /**
   * which counter x-delivery-limit is compared with (rabbit_fifo.erl return_one):
   * 'every-return' (3.10–3.13: delivery_count, raised by every return: nack and reject with requeue,
   * recover, the unacked messages of a channel or connection that closed or died);
   * 'acquired-count' (4.0–4.2: acquired_count, raised by the same returns, rabbitmq-server #10637 in 4.0.0;
   * it starts again at 0 in every queue: a count a dead-lettered copy carries in is not read);
   * 'delivery-count' (4.3.0+: delivery_count, raised by reject(requeue=true) and by a consumer whose
   * channel or connection ends with unacked messages, not by nack(requeue=true): rabbitmq-server #15387)
   */
  deliveryLimitCounter: DeliveryLimitCounter;
  /** nack(requeue=true) raises the count x-delivery-limit is compared with (below 4.3.0; rabbitmq-server #15387) */
  nackRequeueCountsTowardLimit: boolean;
  /**
   * a consumer whose channel or connection ends (closed or died) with unacked messages raises that
   * count for each of them: a crash loop reaches the limit (every line: 3.10 and 4.0–4.2 count every
   * return; 4.3 rabbit_fifo maybe_return_all(…, Reason == down) marks them delivery-failed)
   */
  consumerLossCountsTowardLimit: boolean;
  /** the broker reads an x-death header that a client republishes (below 4.0.0; release notes 4.0) */
  readsClientXDeath: boolean;
  /** x-last-death-reason|queue|exchange headers on a dead letter (3.13.0: mc.erl) */
  lastDeathHeaders: boolean;
  /** native delayed retry on quorum queues: x-delayed-retry-type|min|max (4.3.0: rabbitmq-server #13885) */
  nativeDelayedRetry: boolean;
  /**
   * delayed-retry-type|min|max as policy and operator-policy keys, with their refusal messages and
   * precedence (4.3.1: commit fc9b4d09bc, #16395/#16398; v4.3.0 registers no validator for them, so
   * rabbit_policy refuses such a policy as "not recognised policy settings")
   */
  delayedRetryPolicyKeys: boolean;
  /**
   * a quorum queue's redelivery carries x-acquired-count (every return) beside x-delivery-count
   * (failed deliveries only): since 4.3.0 (rabbit_fifo_client add_delivery_count_header, v4.3.0;
   * absent in v4.2.9). Measured: 4.3.6 sends it, 3.10.8 does not
   */
  acquiredCountHeader: boolean;
  /**
   * dead-letter cycle detection walks the deaths newest first (mc.erl is_cycle_v2): a loop back into
   * a queue is dropped when no client reject happened since the message last left it, so a reject
   * from an earlier lap no longer keeps a delivery_limit → TTL queue → back loop alive. From 3.13.3
   * behind the feature flag message_containers_deaths_v2 ("Bug fix for dead letter cycle detection",
   * #11159; rabbit_core_ff.erl v3.13.3), always from 4.0.0: on 3.13.3–3.13.x the version does not
   * say, the flag's state does (withFeatureFlags). 3.10.8 reads the x-death header, whose order it
   * does not keep (rabbit_dead_letter is_cycle): measured there, such a loop went on
   */
  deadLetterCycleByRecency: boolean;
  /**
   * a copy dead-lettered from a quorum queue carries the message's count of failed deliveries
   * (delivery_count), so it arrives redelivered=true with x-delivery-count when that count is above
   * 0, and the count travels on to further quorum queues (4.0.0: rabbit_fifo_dlx annotate_msg,
   * rabbitmq-server #10637). A failed delivery is a reject(requeue=false) or a consumer lost with the
   * message (every line from 4.0), and from 4.3.0 a reject(requeue=true) too. On 4.0–4.2 it is not the
   * count the consumer saw (x-delivery-count showed the acquired count) nor the one the limit compares:
   * a delivery_limit copy after rejects with requeue carries none there (measured on 4.0.5), limit + 1
   * on 4.3; a nack(requeue=false) copy of a message never rejected carries none on 4.3
   */
  deadLetteredCopyCarriesDeliveryCount: boolean;
  /**
   * queue.purge on a quorum queue also removes its held at-least-once letters (4.3.0: dlx_purge,
   * rabbitmq-server #13885)
   */
  purgeRemovesHeldLetters: boolean;
  /**
   * a channel whose first publish to a quorum queue finds the node its record names as leader down
   * nacks that publish and every later one to the queue, on that channel, until that node answers
   * again; a fresh channel reads the new leader (rabbit_fifo_client enqueue asks only that node:
   * `{badrpc, nodedown}` → reject_publish, state kept). Removed in 3.12.5 (27886dd9a2): 3.11.x and
   * 3.12.0–3.12.4 still have it
   */
  quorumPublishNackSticksToChannel: boolean;
  /**
   * a quorum queue deleted and declared again at once can leave a node unable to restart its new
   * replica: on 3.10.8, a declare 14–21 ms after the delete (while the deleted replicas still
   * terminate), then a SIGKILL of that node: it comes back with "recover: quorum queue … could not be
   * restarted {error,enoent}" and never catches up (a race: 10 runs of 10 at first, 8 of 9 on
   * 2026-12-03; with 1 s between delete and declare, 16 of 16 caught up). Such a node keeps the stale
   * entry in ra's name registry (names.dets) until a delete while its replica runs: ra ≤ 2.4.4 register_name/6 does not replace a name already
   * registered (ra 4aaae47a fixed that in 2.4.5). 4.3.6: the same run catches up (the node starts the
   * member as new: name_not_registered); 4.3.0 also reconciles a member whose id changed on recovery
   * (57c43f011c "Reconcile QQ node dead during delete and redeclare", feature flag
   * track_qq_members_uids). Derived true below 4.3.0 (3.11–4.2 not run here)
   */
  quorumRedeclareStaleReplica: boolean;
  /**
   * a consumer timeout per queue: the x-consumer-timeout argument or the consumer-timeout policy key
   * (3.12.0: rabbit_channel get_queue_consumer_timeout; 3.10.8 and 3.11.0 read only the broker-wide
   * consumer_timeout, when a channel opens)
   */
  consumerTimeoutPerQueue: boolean;
  /**
   * a delivery held past the consumer timeout: the quorum queue returns it without counting it and the
   * channel sends basic.cancel (4.3.0: rabbit_fifo {timeout, evaluate_consumer_timeout}, rabbit_channel
   * `{released, …, timeout}`, to a client that announced consumer_cancel_notify); below 4.3.0 the channel
   * checks on its tick (channel_tick_interval, 60 s by default) and closes with 406 PRECONDITION_FAILED,
   * which returns and counts every unacked delivery of the channel (v4.2.0, v4.0.5, v3.10.8
   * evaluate_consumer_timeout). Measured by `mqlab check`'s consumer-timeout group on 4.3.6 and 3.10.8,
   * and by the consumer-timeout lab on 4.3.6, 4.0.5 and 3.10.8
   */
  consumerTimeoutCancels: boolean;
  /**
   * a quorum queue keeps the deliveries of a consumer whose node it lost (noconnection) checked out to it
   * for consumer_disconnected_timeout (60000 ms by default; the x-consumer-disconnected-timeout argument,
   * the consumer-disconnected-timeout policy key — the lower of both —, rabbit.consumer_disconnected_timeout)
   * before it returns them uncounted; a node back sooner keeps them with the consumer (4.3.0: rabbit_fifo
   * {timeout, {consumer_disconnected_timeout, _}}, rabbit_quorum_queue get_consumer_disconnected_timeout,
   * Ra v3 #13885; quorum_queue_SUITE consumer_disconnected_timeout_*). Below 4.3.0 (v4.2.9, v4.0.5, v3.10.8
   * apply {down, Pid, noconnection}) they are returned at once, counted as failed (3.10: every return
   * counts). Measured by the partition lab on 4.3.6 and 3.10.8 (3-node clusters)
   */
  consumerDisconnectedTimeout: boolean;
  /** per capability: 'measured' on this broker (capability-probe.ts) or 'derived' from the version */
  basis: Partial<Record<CapabilityName, 'measured' | 'derived'>>;
}

type CapabilityName = Exclude<keyof Capabilities, 'version' | 'basis'>;

export function parseVersion(v: string): [number, number, number] {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : [0, 0, 0];
}

export function atLeast(v: string, major: number, minor = 0, patch = 0): boolean {
  const [a, b, c] = parseVersion(v);
  if (a !== major) return a > major;
  if (b !== minor) return b > minor;
  return c >= patch;
}

function deliveryLimitCounter(version: string): DeliveryLimitCounter {
  if (atLeast(version, 4, 3)) return 'delivery-count';
  return atLeast(version, 4, 0) ? 'acquired-count' : 'every-return';
}

/** every capability derived from the version alone */
export function capabilities(version: string): Capabilities {
  const caps: Omit<Capabilities, 'basis'> = {
    version,
    quorumMessageTtl: atLeast(version, 3, 10),
    atLeastOnceDeadLettering: atLeast(version, 3, 10),
    policyApplyToQuorumQueues: atLeast(version, 3, 12),
    defaultDeliveryLimit: atLeast(version, 4, 0) ? 20 : null,
    deliveryLimitCounter: deliveryLimitCounter(version),
    nackRequeueCountsTowardLimit: !atLeast(version, 4, 3),
    consumerLossCountsTowardLimit: true,
    readsClientXDeath: !atLeast(version, 4, 0),
    lastDeathHeaders: atLeast(version, 3, 13),
    nativeDelayedRetry: atLeast(version, 4, 3),
    delayedRetryPolicyKeys: atLeast(version, 4, 3, 1),
    acquiredCountHeader: atLeast(version, 4, 3),
    deadLetterCycleByRecency: atLeast(version, 4, 0),
    deadLetteredCopyCarriesDeliveryCount: atLeast(version, 4, 0),
    purgeRemovesHeldLetters: atLeast(version, 4, 3),
    quorumPublishNackSticksToChannel: !atLeast(version, 3, 12, 5),
    quorumRedeclareStaleReplica: !atLeast(version, 4, 3),
    consumerTimeoutPerQueue: atLeast(version, 3, 12),
    consumerTimeoutCancels: atLeast(version, 4, 3),
    consumerDisconnectedTimeout: atLeast(version, 4, 3),
  };
  const basis: Capabilities['basis'] = {};
  for (const k of Object.keys(caps)) if (k !== 'version') basis[k as CapabilityName] = 'derived';
  return { ...caps, basis };
}

/** the feature flag that brings recency-ordered deaths and is_cycle_v2 to 3.13.3–3.13.x (unconditional from 4.0.0) */
const DEATHS_V2_FLAG = 'message_containers_deaths_v2';

/** the broker's feature flags decide what its version cannot: true when the flags must be read (3.13.3 ≤ version < 4.0) */
export const needsFeatureFlags = (version: string): boolean => atLeast(version, 3, 13, 3) && !atLeast(version, 4, 0);

/** the capabilities a feature flag of this broker decides, laid over the derived ones (marked 'measured') */
export function withFeatureFlags(c: Capabilities, enabled: readonly string[]): Capabilities {
  if (!needsFeatureFlags(c.version)) return c;
  return withMeasured(c, { deadLetterCycleByRecency: enabled.includes(DEATHS_V2_FLAG) });
}

/** what a probe saw, laid over the derived values (each one it measured is marked 'measured') */
export function withMeasured(
  c: Capabilities,
  measured: Partial<Omit<Capabilities, 'version' | 'basis'>>,
): Capabilities {
  const out: Capabilities = { ...c, ...measured, basis: { ...c.basis } };
  for (const k of Object.keys(measured)) out.basis[k as CapabilityName] = 'measured';
  return out;
}

const COUNTER: Record<DeliveryLimitCounter, string> = {
  'every-return': 'every return',
  'acquired-count': 'acquired count (every return)',
  'delivery-count': 'delivery count (reject, consumer loss)',
};

/** one line per capability, for `mqlab status`: value, then (measured) or (derived) */
export function describeCapabilities(c: Capabilities): string[] {
  const rows: [CapabilityName, string, string][] = [
    ['quorumMessageTtl', 'quorum x-message-ttl', yes(c.quorumMessageTtl)],
    ['atLeastOnceDeadLettering', 'at-least-once dead lettering', yes(c.atLeastOnceDeadLettering)],
    [
      'policyApplyToQuorumQueues',
      'policy apply-to quorum_queues',
      c.policyApplyToQuorumQueues ? 'yes' : "no (use 'queues')",
    ],
    ['defaultDeliveryLimit', 'default x-delivery-limit', String(c.defaultDeliveryLimit ?? 'none')],
    ['deliveryLimitCounter', 'delivery limit counts', COUNTER[c.deliveryLimitCounter]],
    ['nackRequeueCountsTowardLimit', 'nack(requeue) counts to limit', yes(c.nackRequeueCountsTowardLimit)],
    ['consumerLossCountsTowardLimit', 'consumer loss counts to limit', yes(c.consumerLossCountsTowardLimit)],
    ['readsClientXDeath', 'reads republished x-death', yes(c.readsClientXDeath)],
    ['lastDeathHeaders', 'x-last-death-* headers', yes(c.lastDeathHeaders)],
    ['nativeDelayedRetry', 'native delayed retry', yes(c.nativeDelayedRetry)],
    ['delayedRetryPolicyKeys', 'delayed retry as policy keys', yes(c.delayedRetryPolicyKeys)],
    ['acquiredCountHeader', 'x-acquired-count header', yes(c.acquiredCountHeader)],
    ['deadLetterCycleByRecency', 'DLX cycle check newest first', yes(c.deadLetterCycleByRecency)],
    [
      'deadLetteredCopyCarriesDeliveryCount',
      'DLQ copy carries delivery count',
      yes(c.deadLetteredCopyCarriesDeliveryCount),
    ],
    ['purgeRemovesHeldLetters', 'purge removes held letters', yes(c.purgeRemovesHeldLetters)],
    ['quorumPublishNackSticksToChannel', 'quorum nack sticks to channel', yes(c.quorumPublishNackSticksToChannel)],
    ['quorumRedeclareStaleReplica', 'quorum re-declare needs a pause', yes(c.quorumRedeclareStaleReplica)],
    ['consumerTimeoutPerQueue', 'consumer timeout per queue', yes(c.consumerTimeoutPerQueue)],
    [
      'consumerTimeoutCancels',
      'consumer timeout answered with',
      c.consumerTimeoutCancels ? 'basic.cancel' : 'channel close 406',
    ],
    [
      'consumerDisconnectedTimeout',
      "lost consumer's deliveries back",
      c.consumerDisconnectedTimeout ? 'after consumer_disconnected_timeout' : 'at once',
    ],
  ];
  return rows.map(([k, label, value]) => `${(label + ' ').padEnd(33, '.')} ${value} (${c.basis[k] ?? 'derived'})`);
}

const yes = (b: boolean) => (b ? 'yes' : 'no');
