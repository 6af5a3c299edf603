import { describe, expect, it } from 'vitest';
import { namespaced } from './names.js';

describe('names', () => {
  it("keeps the labs' own names without a namespace", () => {
    const n = namespaced('');
    expect([n.q('me12.retry.work'), n.t('retry_effect'), n.p('me12-hold')]).toEqual([
      'me12.retry.work',
      'retry_effect',
      'me12-hold',
    ]);
  });

  it('prefixes queues, tables and policies with the namespace', () => {
    const n = namespaced('ws1');
    expect([n.q('me12.retry.work'), n.t('retry_effect'), n.p('me12-hold')]).toEqual([
      'ws1.me12.retry.work',
      'ws1_retry_effect',
      'ws1-me12-hold',
    ]);
  });

  it('builds the exact, anchored pattern a policy uses', () => {
    expect(namespaced('').exact('me12.retry.hold')).toBe('^me12[.]retry[.]hold$');
    const re = new RegExp(namespaced('ws1').exact(namespaced('ws1').q('me12.retry.hold')));
    expect(re.test('ws1.me12.retry.hold')).toBe(true);
    expect(re.test('ws1.me12.retry.hold.target')).toBe(false);
    expect(re.test('ws1Xme12.retry.hold')).toBe(false);
  });
});
