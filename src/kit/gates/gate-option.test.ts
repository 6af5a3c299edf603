import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../core/options.js';
import { gateOption } from './gate-option.js';
import { UsageError } from '../../core/errors.js';

describe('--gate (old name --gate-ms), shared by the labs with replay gates', () => {
  const specs = { gateMs: gateOption('consumer process') };
  const gate = (raw?: string) => parseOptions(specs, raw === undefined ? {} : { gateMs: raw }).gateMs;
  it('defaults to 0 and takes a duration up to 60s, a bare number in ms', () => {
    expect(gate()).toBe(0);
    expect(gate('0')).toBe(0);
    expect(gate('50ms')).toBe(50);
    expect(gate('1000')).toBe(1000);
    expect(gate('1s')).toBe(1000);
    expect(specs.gateMs.aliases).toEqual(['--gate-ms']);
  });
  it('refuses anything else as a usage error naming --gate', () => {
    for (const bad of ['', 'soon', '-1', '1.5', '60001', '2m']) expect(() => gate(bad)).toThrow(UsageError);
    expect(() => gate('2m')).toThrow("--gate must be from 0ms to 1m, got '2m'");
  });
});
