/**
 * Bad input to every option of every lab and tool, generated (fast-check). The option
 * list comes from the registry, so a renamed or new option is covered without editing this file.
 * A value is either accepted or refused with a UsageError: one line, what to do, no secret.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { numberLike, parsedOptions } from '../test/bad-input-values.js';
import { UsageError } from '../src/core/errors.js';
import { loadConfig } from '../src/core/config.js';
import { redactSecrets } from '../src/core/secrets.js';

const SECRET = 'Sup3r-s3cret';

function expectOneLineUsageError(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    const e = err as UsageError;
    expect(e.message).not.toMatch(/\n/);
    expect(e.hint ?? '').not.toMatch(/\n/);
    expect(redactSecrets(`${e.message} ${e.hint ?? ''}`)).not.toContain(SECRET);
    return 'refused';
  }
  return 'accepted';
}

describe('generated bad input, in process', () => {
  it('the registry has options to test (derived, not hard-coded)', () => {
    expect(parsedOptions.length).toBeGreaterThan(3);
  });

  for (const { command, option: opt } of parsedOptions) {
    it(`${command.join(' ')} ${opt.flag}: every value is accepted or refused with one line`, () => {
      const seen = { accepted: 0, refused: 0 };
      fc.assert(
        fc.property(numberLike, (raw) => {
          seen[expectOneLineUsageError(() => opt.parse(raw))] += 1;
        }),
        { numRuns: 200 },
      );
      expect(seen.refused).toBeGreaterThan(0);
    });
  }

  it('URLs: any string given as a URL is accepted or refused in one line, without its password', () => {
    const anyUrl = fc.oneof(
      fc.webUrl().map((u) => u.replace('//', `//app:${SECRET}@`)),
      fc
        .tuple(
          fc.constantFrom('amqp', 'amqps', 'postgres', 'postgresql', 'http', 'mysql', 'ftp', ''),
          fc.string({ maxLength: 20 }),
        )
        .map(([s, rest]) => `${s}://app:${SECRET}@${rest}`),
      fc.string({ maxLength: 20 }).map((rest) => `postgres://app@h${rest}?password=${SECRET}`),
      fc.string({ maxLength: 30 }).map((rest) => `${rest}:${SECRET}@${rest}`),
    );
    fc.assert(
      fc.property(anyUrl, fc.constantFrom('amqpUrl', 'pgUrl', 'mgmtUrl'), (url, key) => {
        expectOneLineUsageError(() => loadConfig({ [key]: url }, {}));
      }),
      { numRuns: 500 },
    );
  });

  it('namespaces: accepted exactly when they are 1-24 of [a-z0-9_] starting with a letter', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 30 }), fc.stringMatching(/^[a-z][a-z0-9_]{0,30}$/)), (ns) => {
        const outcome = expectOneLineUsageError(() => loadConfig({ namespace: ns }, {}));
        expect(outcome).toBe(ns === '' || /^[a-z][a-z0-9_]{0,23}$/.test(ns) ? 'accepted' : 'refused');
      }),
      { numRuns: 500 },
    );
  });
});
