/** The consumer-crash lab's options: the typed object its code gets, and the flags it is parsed from. */
import { type OptionSpecs, gateOption } from '../../src/kit/index.js';

interface CrashOptions {
  /** how long each replay-gate checkpoint holds in the consumer processes (0: released at once) */
  gateMs: number;
}

export const options: OptionSpecs<CrashOptions> = { gateMs: gateOption('consumer processes') };
