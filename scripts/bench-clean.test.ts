import { describe, expect, it } from 'vitest';
import { underNamespace } from './bench-clean.js';

describe('underNamespace', () => {
  it('takes what a namespace named, and not a longer namespace that starts the same', () => {
    const ns = ['bench_c1'];
    expect(underNamespace('bench_c1.me12.retry.work', ns, '.')).toBe(true);
    expect(underNamespace('bench_c10.me12.retry.work', ns, '.')).toBe(false);
    expect(underNamespace('bench_c1_retry_effect', ns, '_')).toBe(true);
    expect(underNamespace('bench_c10_retry_effect', ns, '_')).toBe(false);
    expect(underNamespace('bench_c1-me12-hold', ns, '-')).toBe(true);
    expect(underNamespace('me12.retry.work', ns, '.')).toBe(false);
  });
});
