import { describe, expect, it } from 'vitest';
import {
  atLeast,
  capabilities,
  describeCapabilities,
  parseVersion,
  withFeatureFlags,
  withMeasured,
} from './capabilities.js';
import { fromSeen } from './capability-probe.js';

describe('capabilities from the broker version', () => {
  it('parses versions', () => {
    expect(parseVersion('3.10.8')).toEqual([3, 10, 8]);
    expect(parseVersion('4.3.5+2.g1')).toEqual([4, 3, 5]);
    expect(parseVersion('4.1')).toEqual([4, 1, 0]);
    expect(atLeast('3.12.0', 3, 12)).toBe(true);
    expect(atLeast('3.9.29', 3, 10)).toBe(false);
    expect(atLeast('10.0.0', 4, 3)).toBe(true);
  });

  it('3.10.8: quorum TTL and at-least-once, no quorum_queues apply-to, no default limit, every return counts', () => {
    expect(capabilities('3.10.8')).toMatchObject({
      quorumMessageTtl: true,
      atLeastOnceDeadLettering: true,
      policyApplyToQuorumQueues: false,
      defaultDeliveryLimit: null,
      deliveryLimitCounter: 'every-return',
      nackRequeueCountsTowardLimit: true,
      consumerLossCountsTowardLimit: true,
      readsClientXDeath: true,
      lastDeathHeaders: false,
      nativeDelayedRetry: false,
      deadLetteredCopyCarriesDeliveryCount: false,
      purgeRemovesHeldLetters: false,
      quorumPublishNackSticksToChannel: true,
      quorumRedeclareStaleReplica: true,
    });
  });

  it('consumer timeouts: per queue from 3.12.0, answered with basic.cancel from 4.3.0 (source)', () => {
    expect(capabilities('3.11.28').consumerTimeoutPerQueue).toBe(false);
    expect(capabilities('3.12.0').consumerTimeoutPerQueue).toBe(true);
    expect(capabilities('4.2.9').consumerTimeoutCancels).toBe(false);
    expect(capabilities('4.3.0').consumerTimeoutCancels).toBe(true);
  });

  it('a lost consumer keeps its deliveries for consumer_disconnected_timeout from 4.3.0 (source)', () => {
    expect(capabilities('3.10.8').consumerDisconnectedTimeout).toBe(false);
    expect(capabilities('4.2.9').consumerDisconnectedTimeout).toBe(false);
    expect(capabilities('4.3.0').consumerDisconnectedTimeout).toBe(true);
  });

  it('the boundaries the source shows: 3.12.5 sticky nack, 3.13 x-last-death, 4.0 carried count, 4.3 counter and purge', () => {
    expect(capabilities('3.12.4').quorumPublishNackSticksToChannel).toBe(true);
    expect(capabilities('3.12.5').quorumPublishNackSticksToChannel).toBe(false);
    expect(capabilities('3.11.28').quorumPublishNackSticksToChannel).toBe(true);
    expect(capabilities('3.12.14').lastDeathHeaders).toBe(false);
    expect(capabilities('3.13.0').lastDeathHeaders).toBe(true);
    expect(capabilities('3.13.7')).toMatchObject({
      deadLetteredCopyCarriesDeliveryCount: false,
      readsClientXDeath: true,
      deliveryLimitCounter: 'every-return',
    });
    expect(capabilities('4.0.0')).toMatchObject({
      deadLetteredCopyCarriesDeliveryCount: true,
      readsClientXDeath: false,
      deliveryLimitCounter: 'acquired-count',
      defaultDeliveryLimit: 20,
    });
    expect(capabilities('4.2.9')).toMatchObject({
      nackRequeueCountsTowardLimit: true,
      nativeDelayedRetry: false,
      purgeRemovesHeldLetters: false,
      deliveryLimitCounter: 'acquired-count',
    });
    expect(capabilities('4.3.0')).toMatchObject({
      nackRequeueCountsTowardLimit: false,
      nativeDelayedRetry: true,
      purgeRemovesHeldLetters: true,
      deliveryLimitCounter: 'delivery-count',
    });
  });

  it('4.3.x: default limit 20, the delivery count (not nack), native delayed retry, purge takes held letters', () => {
    expect(capabilities('4.3.5')).toMatchObject({
      policyApplyToQuorumQueues: true,
      defaultDeliveryLimit: 20,
      deliveryLimitCounter: 'delivery-count',
      nackRequeueCountsTowardLimit: false,
      consumerLossCountsTowardLimit: true,
      readsClientXDeath: false,
      nativeDelayedRetry: true,
      deadLetteredCopyCarriesDeliveryCount: true,
      purgeRemovesHeldLetters: true,
      quorumPublishNackSticksToChannel: false,
      quorumRedeclareStaleReplica: false,
    });
  });

  it('every capability says whether it was measured or derived', () => {
    const c = withMeasured(
      capabilities('4.3.6'),
      fromSeen('4.3.6', { afterNack: null, beforeLoss: null, afterLoss: 1, deadLettered: 2 }),
    );
    expect(c.basis.nackRequeueCountsTowardLimit).toBe('measured');
    expect(c.basis.nativeDelayedRetry).toBe('derived');
    const lines = describeCapabilities(c);
    expect(lines).toContain('nack(requeue) counts to limit ... no (measured)');
    expect(lines.every((l) => /\((measured|derived)\)$/.test(l))).toBe(true);
  });
});

describe('what the probe saw → capabilities', () => {
  it('3.10.8 (measured: 1, 2, 3, copy 0): nack counted, the closed channel counted, the DLQ copy at 0', () => {
    expect(fromSeen('3.10.8', { afterNack: 1, beforeLoss: 2, afterLoss: 3, deadLettered: 0 })).toEqual({
      nackRequeueCountsTowardLimit: true,
      consumerLossCountsTowardLimit: true,
      deliveryLimitCounter: 'every-return',
      deadLetteredCopyCarriesDeliveryCount: false,
    });
  });
  it('4.2: nack counted (the acquired count), the copy carries it', () => {
    expect(fromSeen('4.2.9', { afterNack: 1, beforeLoss: 2, afterLoss: 3, deadLettered: 4 })).toMatchObject({
      deliveryLimitCounter: 'acquired-count',
      deadLetteredCopyCarriesDeliveryCount: true,
    });
  });
  it('4.3: no count after nack, 1 after the channel closed', () => {
    expect(fromSeen('4.3.6', { afterNack: null, beforeLoss: null, afterLoss: 1, deadLettered: 2 })).toEqual({
      nackRequeueCountsTowardLimit: false,
      consumerLossCountsTowardLimit: true,
      deliveryLimitCounter: 'delivery-count',
      deadLetteredCopyCarriesDeliveryCount: true,
    });
  });
  it('a lost consumer that did not raise the count is seen as such', () => {
    expect(
      fromSeen('4.3.6', { afterNack: null, beforeLoss: null, afterLoss: null, deadLettered: null })
        .consumerLossCountsTowardLimit,
    ).toBe(false);
  });

  it('x-acquired-count is sent from 4.3.0 on', () => {
    expect(capabilities('4.3.0').acquiredCountHeader).toBe(true);
    expect(capabilities('4.2.9').acquiredCountHeader).toBe(false);
    expect(capabilities('3.10.8').acquiredCountHeader).toBe(false);
  });

  it('dead-letter cycles judged by recency from 4.0.0 on (is_cycle_v2), on 3.13.3+ by its feature flag', () => {
    expect(capabilities('4.0.0').deadLetterCycleByRecency).toBe(true);
    expect(capabilities('3.13.7').deadLetterCycleByRecency).toBe(false);
    const flagged = withFeatureFlags(capabilities('3.13.3'), ['message_containers', 'message_containers_deaths_v2']);
    expect(flagged.deadLetterCycleByRecency).toBe(true);
    expect(flagged.basis.deadLetterCycleByRecency).toBe('measured');
    expect(withFeatureFlags(capabilities('3.13.7'), ['message_containers']).deadLetterCycleByRecency).toBe(false);
    // the flag does not exist before 3.13.3, and from 4.0.0 the version alone decides
    expect(withFeatureFlags(capabilities('3.13.2'), ['message_containers_deaths_v2']).deadLetterCycleByRecency).toBe(
      false,
    );
    expect(withFeatureFlags(capabilities('4.0.5'), []).deadLetterCycleByRecency).toBe(true);
  });

  it('delayed retry: queue arguments from 4.3.0, policy keys from 4.3.1', () => {
    expect(capabilities('4.3.0')).toMatchObject({ nativeDelayedRetry: true, delayedRetryPolicyKeys: false });
    expect(capabilities('4.3.1')).toMatchObject({ nativeDelayedRetry: true, delayedRetryPolicyKeys: true });
    expect(capabilities('4.2.9')).toMatchObject({ nativeDelayedRetry: false, delayedRetryPolicyKeys: false });
  });
});
