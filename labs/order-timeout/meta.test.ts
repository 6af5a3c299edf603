import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { labOptions } from '../../src/lab/lab.js';
import { meta } from './meta.js';
import { DELAY_MS } from './options.js';
import { CHECK_DELIVERIES, NEVER_PAID, ORDERS, PAID, SWEPT } from './scenario.js';

describe('order-timeout metadata and scenario', () => {
  const delay = (raw: string) => labOptions(meta, { delayMs: raw }).delayMs;
  it('--delay (old name --delay-ms) takes a duration from 500ms to 60s, a bare number in ms, else a usage error', () => {
    expect(labOptions(meta).delayMs).toBe(DELAY_MS.default);
    expect(delay('600')).toBe(600);
    expect(delay('600ms')).toBe(600);
    expect(delay('2s')).toBe(2000);
    expect(delay(String(DELAY_MS.min))).toBe(DELAY_MS.min);
    for (const bad of ['5', '400', '0', '1.5s5', '', 'soon', '2m', String(DELAY_MS.max + 1)])
      expect(() => delay(bad)).toThrow(UsageError);
  });
  it('the floor is the two delays the run waits for', () => {
    expect(meta.floorMs).toBe(2 * DELAY_MS.default);
  });
  it('every order ends closed or paid, and the swept ones are among the closed', () => {
    expect([...NEVER_PAID, ...PAID].sort()).toEqual(Object.values(ORDERS).sort());
    for (const id of SWEPT) expect(NEVER_PAID).toContain(id);
    // one check per order, the lost one never, the duplicate twice
    expect(CHECK_DELIVERIES).toBe(Object.keys(ORDERS).length);
  });
});
