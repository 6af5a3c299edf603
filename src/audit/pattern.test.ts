import { describe, expect, it } from 'vitest';
import { compilePattern } from './pattern.js';

const matcher = (p: string) => {
  const r = compilePattern(p);
  if (!r.ok) throw new Error(r.reason);
  return r.pattern;
};

describe('policy patterns (PCRE, bytes, a search anywhere)', () => {
  const cases: [string, string, boolean][] = [
    ['', 'anything', true],
    ['.*', '', true],
    ['^ha\\.', 'ha.orders', true],
    ['^ha\\.', 'xha.orders', false],
    ['orders', 'my-orders-q', true],
    ['^orders$', 'orders', true],
    ['^orders$', 'orders\n', true], // PCRE's $ also before a final newline
    ['^orders\\z', 'orders\n', false],
    ['^(?!amq\\.).*', 'amq.gen-1', false],
    ['^(?!amq\\.).*', 'work', true],
    ['(?<!dlq)$', 'work.dlq', false],
    ['(?<!dlq)$', 'work', true],
    ['^(a|b)+\\.c{2,3}$', 'abba.ccc', true],
    ['^(a|b)+\\.c{2,3}$', 'abba.cccc', false],
    ['^[^.]+\\.dlq$', 'orders.dlq', true],
    ['^[^.]+\\.dlq$', 'a.b.dlq', false],
    ['(?i)^ORDERS', 'orders.x', true],
    ['^[[:digit:]]+$', '0123', true],
    ['\\bwork\\b', 'a.work.b', true],
    ['\\bwork\\b', 'rework', false],
    ['^.$', 'é', false], // two bytes without the unicode option
    ['^..$', 'é', true],
    ['q{,3}', 'q{,3}', true], // not a quantifier in PCRE: literal
    ['^\\Qa.b\\E$', 'a.b', true],
    ['^\\Qa.b\\E$', 'axb', false],
  ];
  it.each(cases)('%j against %j: %s', (p, name, want) => {
    expect(matcher(p).test(name)).toBe(want);
  });

  it('a catastrophic pattern on a long name is decided at once (review D8: 91 s for one queue)', () => {
    const cpu = process.cpuUsage(); // CPU time: the machine may be busy with other work
    expect(matcher('^(a+)+$').test('a'.repeat(5000) + '!')).toBe(false);
    expect(matcher('^(a|aa)*$').test('a'.repeat(5000))).toBe(true);
    expect(matcher('(x+x+)+y').test('x'.repeat(3000))).toBe(false);
    const used = process.cpuUsage(cpu);
    expect((used.user + used.system) / 1000).toBeLessThan(2000);
  });

  it('refuses what the broker refuses (invalid), and what needs backtracking (unsupported)', () => {
    expect(compilePattern('(')).toMatchObject({ ok: false, unsupported: false });
    expect(compilePattern('*a')).toMatchObject({ ok: false, unsupported: false });
    expect(compilePattern('[a')).toMatchObject({ ok: false, unsupported: false });
    expect(compilePattern('\\y')).toMatchObject({ ok: false, unsupported: false });
    expect(compilePattern('(a)\\1')).toMatchObject({ ok: false, unsupported: true });
    expect(compilePattern('(?>a+)b')).toMatchObject({ ok: false, unsupported: true });
    expect(compilePattern('a++')).toMatchObject({ ok: false, unsupported: true });
  });
});
