import { describe, expect, it } from 'vitest';
import {
  classifyDeadLetter,
  describeDeadLetter,
  expectedDeadLetters,
  summaryLine,
  tallyReasons,
  type PathQueues,
} from './reasons.js';

const ts = { '!': 'timestamp', value: 1796013047 };
const Q: PathQueues = {
  business: 'dlr.business',
  retry: 'dlr.twice.retry',
  work: {
    'queue-ttl': 'dlr.queue-ttl',
    'message-ttl': 'dlr.message-ttl',
    'max-length': 'dlr.max-length',
    reject: 'dlr.reject',
    'delivery-limit': 'dlr.delivery-limit',
    twice: 'dlr.twice',
  },
};

/** headers as amqplib decoded them from RabbitMQ 3.10.8 for the per-message expiration path */
const expired310 = {
  'x-death': [
    {
      count: 1,
      reason: 'expired',
      queue: 'dlr.message-ttl',
      time: ts,
      exchange: 'dlr.business',
      'routing-keys': ['message-ttl'],
      'original-expiration': '150',
    },
  ],
  'x-first-death-exchange': 'dlr.business',
  'x-first-death-queue': 'dlr.message-ttl',
  'x-first-death-reason': 'expired',
};

/** the twice path's final letter: the (dlr.twice, rejected) entry moved to the front with count 2 */
const twice = (last: boolean) => ({
  'x-death': [
    { count: 2, reason: 'rejected', queue: 'dlr.twice', time: ts, exchange: 'dlr.business', 'routing-keys': ['twice'] },
    {
      count: 1,
      reason: 'expired',
      queue: 'dlr.twice.retry',
      time: ts,
      exchange: 'dlr.dead',
      'routing-keys': ['twice'],
    },
  ],
  'x-first-death-exchange': 'dlr.business',
  'x-first-death-queue': 'dlr.twice',
  'x-first-death-reason': 'rejected',
  ...(last
    ? { 'x-last-death-exchange': 'dlr.business', 'x-last-death-queue': 'dlr.twice', 'x-last-death-reason': 'rejected' }
    : {}),
});

describe('classifyDeadLetter', () => {
  it('reads the newest death, the first-death headers and the original expiration', () => {
    const v = classifyDeadLetter(expired310, {});
    expect(v).toEqual({
      reason: 'expired',
      queue: 'dlr.message-ttl',
      count: 1,
      first: { reason: 'expired', queue: 'dlr.message-ttl', exchange: 'dlr.business' },
      last: null,
      expiration: null,
      originalExpiration: '150',
      history: ['expired/dlr.message-ttl×1'],
    });
  });

  it('reports an expiration property the dead letter still carries', () => {
    expect(classifyDeadLetter(expired310, { expiration: '150' }).expiration).toBe('150');
  });

  it('reads x-last-death-* when the broker wrote them (3.13+), and the whole history newest first', () => {
    const v = classifyDeadLetter(twice(true));
    expect(v.last).toEqual({ reason: 'rejected', queue: 'dlr.twice', exchange: 'dlr.business' });
    expect(v.count).toBe(2);
    expect(v.history).toEqual(['rejected/dlr.twice×2', 'expired/dlr.twice.retry×1']);
    expect(classifyDeadLetter(twice(false)).last).toBeNull();
  });

  it('says "none" for a message that never died', () => {
    const v = classifyDeadLetter({ attempt: 1 });
    expect(v).toMatchObject({ reason: null, queue: null, count: 0, first: null, last: null, history: [] });
    expect(describeDeadLetter(v)).toBe('none none count=0 first=absent last=absent');
  });
});

describe('expectedDeadLetters', () => {
  it('on 3.10 expects no x-last-death-* headers; from 3.13 on it expects them equal to the death', () => {
    const old = expectedDeadLetters('3.10.8', Q);
    const now = expectedDeadLetters('4.3.0', Q);
    expect(old.reject.view.last).toBeNull();
    expect(now.reject.view.last).toEqual({ reason: 'rejected', queue: 'dlr.reject', exchange: 'dlr.business' });
    expect(expectedDeadLetters('3.13.0', Q).twice.view.last).toEqual(now.twice.view.last);
    expect(expectedDeadLetters('3.12.14', Q).twice.view.last).toBeNull();
  });

  it('expects one reason per path, delivery_limit on every version, and limit + 1 deliveries', () => {
    for (const v of ['3.10.8', '4.3.0']) {
      const e = expectedDeadLetters(v, Q);
      expect(Object.values(e).map((x) => x.view.reason)).toEqual([
        'expired',
        'expired',
        'maxlen',
        'rejected',
        'delivery_limit',
        'rejected',
      ]);
      expect(e['delivery-limit'].deliveries).toBe(3);
      expect(e['max-length'].messageId).toBe('oldest');
      expect(e['message-ttl'].view.originalExpiration).toBe('150');
      expect(e['queue-ttl'].view.originalExpiration).toBeNull();
    }
  });

  it('matches what 3.10.8 wrote on the dead letters, path by path', () => {
    const e = expectedDeadLetters('3.10.8', Q);
    expect(describeDeadLetter(classifyDeadLetter(expired310))).toBe(describeDeadLetter(e['message-ttl'].view));
    expect(describeDeadLetter(classifyDeadLetter(twice(false)))).toBe(describeDeadLetter(e.twice.view));
    expect(classifyDeadLetter(twice(false)).history).toEqual(e.twice.view.history);
    const e4 = expectedDeadLetters('4.3.0', Q);
    expect(describeDeadLetter(classifyDeadLetter(twice(true)))).toBe(describeDeadLetter(e4.twice.view));
    expect(describeDeadLetter(classifyDeadLetter(twice(false)))).not.toBe(describeDeadLetter(e4.twice.view));
  });

  it('describes a dead letter in one line', () => {
    expect(describeDeadLetter(expectedDeadLetters('3.10.8', Q)['queue-ttl'].view)).toBe(
      'expired dlr.queue-ttl count=1 first=expired/dlr.queue-ttl/dlr.business last=absent',
    );
  });
});

describe('summary line', () => {
  it('tallies the single-death paths by reason, in a fixed order', () => {
    const views = [expired310, expired310, { 'x-death': [{ count: 1, reason: 'maxlen', queue: 'q' }] }].map((h) =>
      classifyDeadLetter(h),
    );
    expect(tallyReasons([...views, undefined])).toEqual({ expired: 2, maxlen: 1, rejected: 0, delivery_limit: 0 });
  });

  it('keeps a reason it did not expect, so the line shows what the broker did', () => {
    const v = classifyDeadLetter({ 'x-death': [{ count: 1, reason: 'delivery-limit-exceeded', queue: 'q' }] });
    expect(tallyReasons([v])).toMatchObject({ delivery_limit: 0, 'delivery-limit-exceeded': 1 });
  });

  it('prints the documented line', () => {
    expect(summaryLine({ expired: 2, maxlen: 1, rejected: 1, delivery_limit: 1 }, true, [1, 2])).toBe(
      'dead-letter-reasons: expired=2 maxlen=1 rejected=1 delivery_limit=1 expirationRemoved=true countGrowth=[1, 2]',
    );
  });
});
