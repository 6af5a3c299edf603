import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { DELAY_MS, meta, parseDelayMs } from './meta.js';
import { CHECK_DELIVERIES, NEVER_PAID, ORDERS, PAID, SWEPT } from './scenario.js';

describe('order-timeout metadata and scenario', () => {
  it('--delay-ms takes whole milliseconds in range, else a usage error', () => {
    expect(parseDelayMs('600')).toBe(600);
    expect(parseDelayMs(String(DELAY_MS.min))).toBe(DELAY_MS.min);
    for (const bad of ['5', '400', '1s', '', String(DELAY_MS.max + 1)]) expect(() => parseDelayMs(bad)).toThrow(UsageError);
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
