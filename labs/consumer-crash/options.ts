/** The consumer-crash lab's options: the typed object its code gets, and the flags it is parsed from. */
import { duration, type OptionSpecs } from '../../src/options.js';

export interface CrashOptions {
  /** how long each replay-gate checkpoint holds in the consumer processes (0: released at once) */
  gateMs: number;
}

export const options: OptionSpecs<CrashOptions> = {
  gateMs: {
    flag: '--gate <duration>',
    description: "hold each replay-gate checkpoint in the consumer processes this long (the seed's demo holds about 1000ms); a bare number is ms",
    default: '0ms',
    aliases: ['--gate-ms'],
    parse: duration({ min: 0, max: 60_000, bare: 'ms' }),
  },
};
