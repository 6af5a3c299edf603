import { describe, expect, it } from 'vitest';
import { pgCredentials } from './options.js';

describe('pgCredentials', () => {
  it('takes ?password= as the password, as libpq does, and does not pass it on', () => {
    const c = pgCredentials('postgresql://app@127.0.0.1:5532/lab?password=s3cret&sslmode=disable');
    expect(c.password).toBe('s3cret');
    expect(c.url).toBe('postgresql://app@127.0.0.1:5532/lab?sslmode=disable');
  });
  it('leaves a URL without it as it is; a userinfo password wins', () => {
    expect(pgCredentials('postgres://app:pw@h/lab')).toEqual({ url: 'postgres://app:pw@h/lab' });
    expect(pgCredentials('postgres://app:pw@h/lab?password=x').password).toBeUndefined();
  });
});
