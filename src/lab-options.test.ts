import { describe, expect, it } from 'vitest';
import { optionValues } from './lab-options.js';
import { registry } from '../labs/registry.js';

describe('lab options', () => {
  const entry = { name: 'x', title: '', proves: '', floorMs: 0, load: async () => ({}) as never, options: [{ flags: '--recover-timeout <seconds>', description: '', default: 240 }, { flags: '--window-ms <ms>', description: '' }] };

  it('takes the given flags, camelCased, and the registry default for the rest', () => {
    expect(optionValues(entry.options, { recoverTimeout: 10 })).toEqual({ recoverTimeout: 10, windowMs: undefined });
    expect(optionValues(entry.options, {})).toEqual({ recoverTimeout: 240, windowMs: undefined });
  });

  it('every registry option has a default, so `mqlab all` runs each lab as it runs alone', () => {
    for (const lab of registry) for (const opt of lab.options ?? []) expect(opt.default, `${lab.name} ${opt.flags}`).not.toBeUndefined();
  });

  it('lab names are unique and the registry says what each proves', () => {
    expect(new Set(registry.map((l) => l.name)).size).toBe(registry.length);
    for (const lab of registry) expect(lab.proves.length, lab.name).toBeGreaterThan(40);
  });
});
