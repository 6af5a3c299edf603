import { describe, expect, it } from 'vitest';
import { deadLetterPolicy, heldLetters, strategyInEffect } from './dead-letter.js';

const input = { name: 'p', pattern: '^q$', dlx: 'q.dlx', routingKey: 'failed' };

describe('dead-letter policies', () => {
  it('leave the strategy out for the default, so the broker applies at-most-once', () => {
    const p = deadLetterPolicy({ ...input, strategy: 'default' }, { policyApplyToQuorumQueues: false });
    expect(p.definition).toEqual({
      'dead-letter-exchange': 'q.dlx',
      'dead-letter-routing-key': 'failed',
      overflow: 'reject-publish',
      'max-length': 100,
    });
    expect(p.applyTo).toBe('queues');
    expect(strategyInEffect(p.definition)).toBe('at-most-once');
  });

  it('name at-least-once with reject-publish, apply-to quorum_queues where the broker knows it', () => {
    const p = deadLetterPolicy({ ...input, strategy: 'at-least-once' }, { policyApplyToQuorumQueues: true });
    expect(p.definition).toMatchObject({ 'dead-letter-strategy': 'at-least-once', overflow: 'reject-publish' });
    expect(p.applyTo).toBe('quorum_queues');
    expect(strategyInEffect(p.definition)).toBe('at-least-once');
    expect(strategyInEffect(null)).toBe('at-most-once');
  });

  it('count held letters as messages in neither ready nor unacked', () => {
    expect(heldLetters({ messages: 2, ready: 1, unacked: 0 })).toBe(1);
  });
});
