/**
 * Typed options of a lab or a tool: each option is a spec (flag, help, default as a user would
 * type it, parser); `parseOptions` turns the raw strings of a command line into the typed object
 * once, at the boundary. The shared parsers give every flag the same rules and messages.
 */
import { UsageError } from './errors.js';
import { formatDuration, parseDuration, type DurationUnit } from './duration.js';

export interface OptionSpec<T> {
  /** commander flag syntax, e.g. '--window <duration>' */
  flag: string;
  description: string;
  /** the default, written as on a command line ('1500ms'); parsed like a given value */
  default?: string;
  /** older flag names still accepted (hidden from --help), e.g. '--window-ms' */
  aliases?: string[];
  /** the option must be given */
  required?: boolean;
  /** raw string → value; throws UsageError naming the flag */
  parse: (raw: string, flag: string) => T;
}

/**
 * The options of some lab, whichever: a registry holds labs whose options differ, and a lab's options
 * go both into its functions and out of its parser, so no narrower type takes them all.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the existential "some lab's options" (above)
export type AnyOptions = any;

/** one spec per key of the options object */
export type OptionSpecs<O> = { [K in keyof O]-?: OptionSpec<O[K]> };

/** the flag's long name without its argument: '--window <duration>' → '--window' */
export const flagName = (flag: string): string => flag.split(/[ ,]/)[0] ?? flag;

/** a whole number from min to max */
export const integer =
  (min: number, max: number) =>
  (raw: string, flag: string): number => {
    const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max)
      throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got '${raw}'`);
    return n;
  };

/**
 * a duration in milliseconds from min to max (0 allowed when min is 0: '0' or '0ms');
 * a bare number is read in `bare`, the unit the flag had before durations took units
 */
export const duration =
  ({ min, max, bare }: { min: number; max: number; bare?: DurationUnit }) =>
  (raw: string, flag: string): number => {
    const ms = min === 0 && /^0(ms|s)?$/.test(raw.trim()) ? 0 : parseDurationFor(flag, raw, bare);
    if (ms < min || ms > max)
      throw new UsageError(`${flag} must be from ${formatDuration(min)} to ${formatDuration(max)}, got '${raw}'`);
    return ms;
  };

/** one line, as every option error: what the flag takes, and what it got */
function parseDurationFor(flag: string, raw: string, bare?: DurationUnit): number {
  try {
    return parseDuration(raw, bare);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    const form = bare ? `; a bare number is ${bare}` : '';
    throw new UsageError(`${flag} must be a duration (e.g. 500ms, 2s, 90m, 12h, 30d${form}), got '${raw}'`);
  }
}

/** one of a few words, in any case */
export const oneOf =
  <T extends string>(values: readonly T[]) =>
  (raw: string, flag: string): T => {
    const v = raw.trim().toUpperCase();
    if (!(values as readonly string[]).includes(v))
      throw new UsageError(`${flag} must be one of ${values.join(', ')}, got '${raw}'`);
    return v as T;
  };

/** raw strings by option key (absent: not given) → the typed options, defaults applied */
export function parseOptions<O>(specs: OptionSpecs<O>, given: Partial<Record<keyof O, string>> = {}): O {
  const out = {} as O;
  for (const key of Object.keys(specs) as (keyof O)[]) {
    const spec = specs[key];
    const raw: string | undefined = given[key] ?? spec.default;
    if (raw === undefined && spec.required)
      throw new UsageError(`${flagName(spec.flag)} is required`, `${flagName(spec.flag)}: ${spec.description}`);
    if (raw !== undefined) out[key] = spec.parse(raw, flagName(spec.flag));
  }
  return out;
}
