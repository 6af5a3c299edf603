/** Bad-input generators, and every option with a parser in the lab registry (labs and their tools). */
import fc from 'fast-check';
import { registry } from '../labs/registry.js';
import type { OptionSpec } from '../src/core/options.js';

export interface ParsedOption {
  /** the command words: ['hold'] or ['archive', 'purge'] */
  command: string[];
  /** the option's spec, its parser bound to its flag */
  option: OptionSpec<unknown> & { parse: (raw: string) => unknown };
  /** the flag as typed: '--recover-timeout' */
  flag: string;
}

const specs = (o: object | undefined) => Object.values(o ?? {}) as OptionSpec<unknown>[];

export const parsedOptions: ParsedOption[] = registry
  .flatMap((entry) => [
    ...specs(entry.options).map((option) => ({ command: [entry.name], option })),
    ...(entry.tools ?? []).flatMap((t) =>
      specs(t.options).map((option) => ({ command: [entry.name, t.name], option })),
    ),
  ])
  .map(({ command, option }) => {
    const flag = /--[a-z0-9-]+/.exec(option.flag)![0];
    return { command, flag, option: { ...option, parse: (raw: string) => option.parse(raw, flag) } };
  });

/** what people type for a number or a duration, wrong in every way we know, and random strings */
export const numberLike = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '-1',
    '0',
    '-0',
    '1.5',
    '1e3',
    '0x10',
    'NaN',
    'Infinity',
    '１０',
    '10 s',
    '10x',
    '999999999999999999999',
    '2147483648',
    '-9007199254740993',
    '30d30d',
    'ms',
    '1,000',
  ),
  fc.integer({ min: -1e12, max: 1e12 }).map(String),
  fc.double({ noNaN: false }).map(String),
  fc
    .tuple(fc.integer({ min: -5, max: 1e7 }), fc.constantFrom('', 'ms', 's', 'm', 'h', 'd', 'w', 'sec', 'S', ' s'))
    .map(([n, u]) => `${n}${u}`),
  fc.string({ maxLength: 12 }),
);
