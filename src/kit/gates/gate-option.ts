/**
 * --gate, the option of every lab whose consumer has replay gates (src/kit/gates/replay-gate.ts): how long each
 * gate holds in the consumer process. Imported by the labs' metadata, so it loads only the option parser.
 */
import { duration, type OptionSpec } from '../../core/options.js';

export const gateOption = (processes: string): OptionSpec<number> => ({
  flag: '--gate <duration>',
  description: `hold each replay-gate checkpoint in the ${processes} this long (e.g. 1s, to read each gate as it is reached); a bare number is ms`,
  default: '0ms',
  aliases: ['--gate-ms'],
  parse: duration({ min: 0, max: 60_000, bare: 'ms' }),
});
