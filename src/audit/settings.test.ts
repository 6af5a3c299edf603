/**
 * An argument and a policy on one key, resolved per queue type and line as rabbit_quorum_queue /
 * rabbit_amqqueue_process do (args_policy_lookup at v3.10.8, v4.0.5, v4.3.5; source-audit-2 #14, §5 #7).
 */
import { describe, expect, it } from 'vitest';
import { setting } from './settings.js';
import type { AuditQueue } from './snapshot.js';
import type { Version } from './target.js';

const V310: Version = [3, 10, 8];
const V43: Version = [4, 3, 6];

const q = (type: string, key: string, arg: unknown, pol: unknown): AuditQueue => ({
  vhost: 'v',
  name: 'q',
  type,
  durable: true,
  autoDelete: false,
  exclusive: false,
  arguments: arg === undefined ? {} : { [`x-${key}`]: arg },
  policy: pol === undefined ? null : { [key]: pol },
  policyName: pol === undefined ? null : 'p',
  operatorPolicyName: null,
  stats: null,
  members: null,
});
const value = (type: string, key: string, arg: unknown, pol: unknown, v = V43) =>
  setting(q(type, key, arg, pol), key, v);

describe('setting(): argument vs policy, key by key', () => {
  it('quorum overflow: the policy wins on every line; classic overflow: the argument', () => {
    for (const v of [V310, V43])
      expect(value('quorum', 'overflow', 'reject-publish', 'drop-head', v)).toEqual({
        value: 'drop-head',
        from: "policy 'p' (it wins over argument x-overflow = reject-publish)",
      });
    expect(value('classic', 'overflow', 'reject-publish', 'drop-head')?.value).toBe('reject-publish');
  });

  it('the dead-letter keys: the argument on both types', () => {
    for (const type of ['quorum', 'classic'])
      expect(value(type, 'dead-letter-exchange', 'a', 'b')?.from).toMatch(/^argument x-dead-letter-exchange \(it wins/);
  });

  it('max-length and message-ttl: the lower, whichever side holds it', () => {
    for (const type of ['quorum', 'classic']) {
      expect(value(type, 'max-length', 10, 5)).toEqual({
        value: 5,
        from: "policy 'p' (the lower of argument x-max-length = 10 and policy 'p' = 5)",
      });
      expect(value(type, 'message-ttl', 1000, 60_000)?.value).toBe(1000);
    }
  });

  it('quorum expires: the policy before 4.0 (policyHasPrecedence, v3.10.8 L258), the lower from 4.0.0', () => {
    expect(value('quorum', 'expires', 1000, 60_000, V310)?.value).toBe(60_000);
    expect(value('quorum', 'expires', 1000, 60_000, V43)?.value).toBe(1000);
    expect(value('classic', 'expires', 1000, 60_000, V310)?.value).toBe(1000);
  });

  it('quorum delivery-limit: the lower on 3.10; from 4.0 resolve_delivery_limit (a negative side: the larger)', () => {
    expect(value('quorum', 'delivery-limit', 5, -1, V310)?.value).toBe(-1);
    expect(value('quorum', 'delivery-limit', 5, -1, V43)).toEqual({
      value: 5,
      from: "argument x-delivery-limit (the larger of argument x-delivery-limit = 5 and policy 'p' = -1, one being negative)",
    });
    expect(value('quorum', 'delivery-limit', -1, 3, V43)?.value).toBe(3);
    expect(value('quorum', 'delivery-limit', 5, 3, V43)?.value).toBe(3);
  });

  it('one side only: that side, named', () => {
    expect(value('quorum', 'overflow', undefined, 'reject-publish')?.from).toBe("policy 'p'");
    expect(value('quorum', 'overflow', 'reject-publish', undefined)?.from).toBe('argument x-overflow');
    expect(value('quorum', 'overflow', undefined, undefined)).toBeNull();
  });
});
