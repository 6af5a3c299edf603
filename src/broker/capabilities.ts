/**
 * What the connected broker can do, derived from its version (connection.serverProperties.version).
 * Facts measured on 3.10.8 and on 4.3.6 (chroot backend); see docs/broker-versions.md.
 */
export interface Capabilities {
  version: string;
  /** quorum queues honour x-message-ttl (head-only expiry) */
  quorumMessageTtl: boolean;
  /** dead-letter-strategy=at-least-once on quorum queues */
  atLeastOnceDeadLettering: boolean;
  /** policies can use --apply-to quorum_queues */
  policyApplyToQuorumQueues: boolean;
  /** x-delivery-limit applied to quorum queues when none is set (null: none) */
  defaultDeliveryLimit: number | null;
  /** nack(requeue=true) counts toward x-delivery-limit (reject(requeue=true) always does) */
  nackRequeueCountsTowardLimit: boolean;
  /** the broker reads an x-death header that a client republishes (4.x ignores it) */
  readsClientXDeath: boolean;
  /** native delayed retry on quorum queues: x-delayed-retry-type|min|max */
  nativeDelayedRetry: boolean;
  /**
   * a quorum queue's redelivery carries x-acquired-count (every return) beside x-delivery-count
   * (failed deliveries only): since 4.3.0 (rabbit_fifo_client add_delivery_count_header, v4.3.0;
   * absent in v4.2.9). Measured: 4.3.6 sends it, 3.10.8 does not
   */
  acquiredCountHeader: boolean;
  /**
   * a copy dead-lettered after it was delivered (rejected, delivery_limit) keeps its delivery count:
   * it arrives in the DLQ with redelivered=true and x-delivery-count 1 (measured on 4.3.6; 3.10.8: false, 0)
   */
  deadLetterKeepsDeliveryCount: boolean;
  /**
   * a channel whose first publish to a quorum queue finds the node its record names as leader down
   * nacks that publish and every later one to the queue, on that channel, until that node answers
   * again; a fresh channel reads the new leader (3.10.8: rabbit_fifo_client asks only that node,
   * `{badrpc, nodedown}` → reject_publish, state kept; 4.3.6: the first publish waits for the
   * election). 3.11–3.13 not measured: counted as 3.10 (a fresh channel costs nothing where not needed)
   */
  quorumNackSticksToChannel: boolean;
  /**
   * how long after a quorum queue is declared a node may still lose its replica's registration when
   * killed: 3.10.8's ra 2.2 keeps the name → data-folder map in names.dets, which writes up to 3 s
   * late (dets' default delayed_write); a node SIGKILLed sooner after a delete and re-declare of the
   * same name restarts on the old, deleted folder ("recover: quorum queue … could not be restarted
   * {error,enoent}") and never rejoins. 4.3.6: the replica recovers (0)
   */
  quorumRegistrationDelayMs: number;
}

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

export function capabilities(version: string): Capabilities {
  return {
    version,
    quorumMessageTtl: atLeast(version, 3, 10),
    atLeastOnceDeadLettering: atLeast(version, 3, 10),
    policyApplyToQuorumQueues: atLeast(version, 3, 12),
    defaultDeliveryLimit: atLeast(version, 4, 0) ? 20 : null,
    nackRequeueCountsTowardLimit: !atLeast(version, 4, 3),
    readsClientXDeath: !atLeast(version, 4, 0),
    nativeDelayedRetry: atLeast(version, 4, 3),
    acquiredCountHeader: atLeast(version, 4, 3),
    deadLetterKeepsDeliveryCount: atLeast(version, 4, 3),
    quorumNackSticksToChannel: !atLeast(version, 4, 0),
    quorumRegistrationDelayMs: atLeast(version, 4, 0) ? 0 : 3000,
  };
}

/** one line per capability, for `mqlab status` */
export function describeCapabilities(c: Capabilities): string[] {
  return [
    `quorum x-message-ttl ............ ${yes(c.quorumMessageTtl)}`,
    `at-least-once dead lettering .... ${yes(c.atLeastOnceDeadLettering)}`,
    `policy apply-to quorum_queues ... ${c.policyApplyToQuorumQueues ? 'yes' : "no (use 'queues')"}`,
    `default x-delivery-limit ........ ${c.defaultDeliveryLimit ?? 'none'}`,
    `nack(requeue) counts to limit ... ${yes(c.nackRequeueCountsTowardLimit)}`,
    `reads republished x-death ....... ${yes(c.readsClientXDeath)}`,
    `native delayed retry ............ ${yes(c.nativeDelayedRetry)}`,
    `x-acquired-count header ......... ${yes(c.acquiredCountHeader)}`,
    `DLQ copy keeps delivery count ... ${yes(c.deadLetterKeepsDeliveryCount)}`,
    `quorum nack sticks to channel ... ${yes(c.quorumNackSticksToChannel)}`,
    `quorum replica on disk after .... ${c.quorumRegistrationDelayMs ? `up to ${c.quorumRegistrationDelayMs / 1000} s` : 'at once'}`,
  ];
}

const yes = (b: boolean) => (b ? 'yes' : 'no');
