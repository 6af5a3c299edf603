import { describe, expect, it } from 'vitest';
import { namespaced } from '../../src/core/names.js';
import { UsageError } from '../../src/core/errors.js';
import { heldLetters, policyLine, statsLine } from '../../src/kit/dead-letter.js';
import { republishEvidence } from './verdicts.js';
import { holdPolicy, names } from './names.js';
import { labOptions } from '../../src/lab/lab.js';
import { meta } from './meta.js';

/** x-death as amqplib decodes it from a message the broker dead-lettered from the source */
const brokerHeaders = (queue: string, { reason = 'rejected', count = 1 } = {}) => ({
  'x-death': [
    { count, reason, queue, time: { '!': 'timestamp', value: 1796013033 }, exchange: '', 'routing-keys': [queue] },
  ],
  'x-first-death-exchange': '',
  'x-first-death-queue': queue,
  'x-first-death-reason': reason,
});

describe('the hold policy', () => {
  it('is the hold set_policy, on exactly the source queue, apply-to as the broker knows it', () => {
    const p = holdPolicy(namespaced(''), { policyApplyToQuorumQueues: true });
    expect(p).toEqual({
      name: 'me12-hold',
      pattern: '^me12[.]retry[.]hold$',
      applyTo: 'quorum_queues',
      definition: {
        'dead-letter-exchange': 'me12.retry.hold.dlx',
        'dead-letter-routing-key': 'failed',
        'dead-letter-strategy': 'at-least-once',
        overflow: 'reject-publish',
        'max-length': 100,
      },
    });
    expect(holdPolicy(namespaced(''), { policyApplyToQuorumQueues: false }).applyTo).toBe('queues');
  });

  it('follows --namespace: its own policy, pattern and dead-letter exchange', () => {
    const p = holdPolicy(namespaced('ns1'), { policyApplyToQuorumQueues: false });
    expect(p.name).toBe('ns1-me12-hold');
    expect(p.pattern).toBe('^ns1[.]me12[.]retry[.]hold$');
    expect(p.definition['dead-letter-exchange']).toBe('ns1.me12.retry.hold.dlx');
    expect(new RegExp(p.pattern).test(names(namespaced('ns1')).source)).toBe(true);
    expect(new RegExp(p.pattern).test(names(namespaced('ns1')).target)).toBe(false);
  });

  it('compares with what the broker stores whatever the key order', () => {
    const ours = holdPolicy(namespaced(''), { policyApplyToQuorumQueues: false });
    const stored = {
      pattern: ours.pattern,
      applyTo: 'queues',
      definition: Object.fromEntries(Object.entries(ours.definition).reverse()),
    };
    expect(policyLine(stored)).toBe(policyLine(ours));
    expect(
      policyLine({ ...stored, definition: { ...stored.definition, 'dead-letter-strategy': 'at-most-once' } }),
    ).not.toBe(policyLine(ours));
  });
});

describe('held letters in the statistics', () => {
  it('are counted in messages but in neither ready nor unacked', () => {
    expect(heldLetters({ messages: 1, ready: 0, unacked: 0 })).toBe(1);
    expect(heldLetters({ messages: 3, ready: 1, unacked: 1 })).toBe(1);
    expect(heldLetters({ messages: 0, ready: 0, unacked: 0 })).toBe(0);
  });

  it('print as list_queues names the columns', () => {
    expect(statsLine({ messages: 1, ready: 0, unacked: 0 })).toBe('messages=1 ready=0 unacked=0');
    expect(statsLine(null)).toBe('no statistics');
  });
});

describe('republish evidence', () => {
  it('accepts a letter the broker dead-lettered once from the source for a rejection', () => {
    const e = republishEvidence(brokerHeaders('me12.retry.hold'), 'me12.retry.hold');
    expect(e.deadLetteredByBroker).toBe(true);
    expect(e.death).toMatchObject({ queue: 'me12.retry.hold', reason: 'rejected', count: 1, time: 1796013033 });
  });

  it('rejects a message without x-death (an application publish to the DLX)', () => {
    expect(republishEvidence({ 'mqlab-run': 'x' }, 'me12.retry.hold').deadLetteredByBroker).toBe(false);
  });

  it('rejects a death on another queue, another reason, or a second death', () => {
    expect(republishEvidence(brokerHeaders('me12.retry.work'), 'me12.retry.hold').deadLetteredByBroker).toBe(false);
    const expired = brokerHeaders('me12.retry.hold', { reason: 'expired' });
    expect(republishEvidence(expired, 'me12.retry.hold').deadLetteredByBroker).toBe(false);
    const twice = brokerHeaders('me12.retry.hold', { count: 2 });
    expect(republishEvidence(twice, 'me12.retry.hold').deadLetteredByBroker).toBe(false);
  });
});

describe('--recover-timeout', () => {
  it('takes a duration; a bare number is seconds, as the flag took before', () => {
    const timeout = (raw?: string) =>
      labOptions(meta, raw === undefined ? {} : { recoverTimeoutMs: raw }).recoverTimeoutMs;
    expect(timeout()).toBe(240_000);
    expect(timeout('240')).toBe(240_000);
    expect(timeout('0.5')).toBe(500);
    expect(timeout('90s')).toBe(90_000);
    expect(timeout('1500ms')).toBe(1500);
  });

  it.each(['0', '-3', 'abc', '', '1e9', '2d'])('refuses %j with a usage error', (raw) => {
    expect(() => labOptions(meta, { recoverTimeoutMs: raw })).toThrow(UsageError);
  });
});
