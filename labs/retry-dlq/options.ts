/** The retry-dlq lab's options: the typed object its code gets, and the flags it is parsed from. */
import { type OptionSpecs, gateOption } from '../../src/kit/index.js';

interface RetryDlqOptions {
  /** how long each replay-gate checkpoint holds in the consumer process (0: released at once) */
  gateMs: number;
}

export const options: OptionSpecs<RetryDlqOptions> = { gateMs: gateOption('consumer process') };
