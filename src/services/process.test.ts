import { describe, expect, it } from 'vitest';
import { withSbin } from './process.js';

describe('withSbin', () => {
  it('adds the sbin folders a non-login PATH lacks (chroot lives in /usr/sbin), keeping what is there', () => {
    expect(withSbin('/usr/local/bin:/usr/bin:/bin')).toBe('/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin');
    expect(withSbin('/usr/sbin:/usr/bin:/sbin:/bin')).toBe('/usr/sbin:/usr/bin:/sbin:/bin');
    expect(withSbin(undefined)).toBe('/usr/bin:/bin:/usr/sbin:/sbin');
  });
});
