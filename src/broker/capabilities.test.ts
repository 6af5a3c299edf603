import { describe, expect, it } from 'vitest';
import { atLeast, capabilities, parseVersion } from './capabilities.js';

describe('capabilities from the broker version', () => {
  it('parses versions', () => {
    expect(parseVersion('3.10.8')).toEqual([3, 10, 8]);
    expect(parseVersion('4.3.5+2.g1')).toEqual([4, 3, 5]);
    expect(parseVersion('4.1')).toEqual([4, 1, 0]);
    expect(atLeast('3.12.0', 3, 12)).toBe(true);
    expect(atLeast('3.9.29', 3, 10)).toBe(false);
    expect(atLeast('10.0.0', 4, 3)).toBe(true);
  });

  it('3.10.8: quorum TTL and at-least-once, no quorum_queues apply-to, no default delivery limit', () => {
    expect(capabilities('3.10.8')).toMatchObject({
      quorumMessageTtl: true,
      atLeastOnceDeadLettering: true,
      policyApplyToQuorumQueues: false,
      defaultDeliveryLimit: null,
      nackRequeueCountsTowardLimit: true,
      readsClientXDeath: true,
      nativeDelayedRetry: false,
      deadLetterKeepsDeliveryCount: false,
      quorumNackSticksToChannel: true,
      quorumRegistrationDelayMs: 3000,
    });
  });

  it('4.3.x: default limit 20, nack(requeue) no longer counts, native delayed retry', () => {
    expect(capabilities('4.3.5')).toMatchObject({
      policyApplyToQuorumQueues: true,
      defaultDeliveryLimit: 20,
      nackRequeueCountsTowardLimit: false,
      readsClientXDeath: false,
      nativeDelayedRetry: true,
      deadLetterKeepsDeliveryCount: true,
      quorumNackSticksToChannel: false,
      quorumRegistrationDelayMs: 0,
    });
    expect(capabilities('4.2.1')).toMatchObject({ nackRequeueCountsTowardLimit: true, nativeDelayedRetry: false, defaultDeliveryLimit: 20 });
  });

  it('x-acquired-count is sent from 4.3.0 on', () => {
    expect(capabilities('4.3.0').acquiredCountHeader).toBe(true);
    expect(capabilities('4.2.9').acquiredCountHeader).toBe(false);
    expect(capabilities('3.10.8').acquiredCountHeader).toBe(false);
  });
});
