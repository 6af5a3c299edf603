import { describe, expect, it } from 'vitest';
import { chromiumPath, chromiumPlan, DEFAULT_CHROMIUM, stillMissing } from './chromium.js';

const missing = { path: DEFAULT_CHROMIUM, custom: false, exists: false, root: true, apt: true };

describe('the browser test’s Chromium', () => {
  it('is Debian’s /usr/bin/chromium unless MQLAB_CHROMIUM names another', () => {
    expect(chromiumPath({})).toBe('/usr/bin/chromium');
    expect(chromiumPath({ MQLAB_CHROMIUM: '/opt/c/chrome' })).toBe('/opt/c/chrome');
  });

  it('present: nothing to do', () => {
    expect(chromiumPlan({ ...missing, exists: true, root: false, apt: false })).toEqual({ kind: 'present' });
  });

  it('missing, as root with apt-get: installed', () => {
    expect(chromiumPlan(missing)).toEqual({ kind: 'install' });
    expect(chromiumPlan({ ...missing, custom: true, path: '/tmp/x/chromium' })).toEqual({ kind: 'install' });
  });

  it('missing, not root: one line with the command to run once', () => {
    const p = chromiumPlan({ ...missing, root: false });
    expect(p).toEqual({
      kind: 'cannot',
      line: expect.stringContaining('installing it needs root: run `sudo apt-get install -y chromium` once') as unknown,
    });
    expect(p.kind === 'cannot' && p.line.split('\n')).toHaveLength(1);
  });

  it('missing, no apt-get: one line saying to install one and point MQLAB_CHROMIUM at it', () => {
    const p = chromiumPlan({ ...missing, custom: true, path: '/opt/c/chrome', apt: false });
    expect(p).toEqual({
      kind: 'cannot',
      line: 'no Chromium at /opt/c/chrome (MQLAB_CHROMIUM) and no apt-get here to install Debian’s chromium: install Chromium and set MQLAB_CHROMIUM to its binary'.replace(
        '’',
        "'",
      ),
    });
  });

  it('still missing after the install: says which path and what to change', () => {
    expect(stillMissing('/tmp/x/chromium')).toBe(
      'apt-get installed chromium, but there is no /tmp/x/chromium: unset MQLAB_CHROMIUM to use /usr/bin/chromium, or set MQLAB_CHROMIUM to a Chromium binary',
    );
  });
});
