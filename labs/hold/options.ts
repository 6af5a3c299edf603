/** The hold lab's options: the typed object its code gets, and the flags it is parsed from. */
import { duration, type OptionSpecs } from '../../src/kit/index.js';

interface HoldOptions {
  /** how long to wait after the rebind for the broker's dead-letter worker */
  recoverTimeoutMs: number;
}

export const options: OptionSpecs<HoldOptions> = {
  recoverTimeoutMs: {
    flag: '--recover-timeout <duration>',
    description:
      "how long to wait after the rebind for the broker's dead-letter worker (180 s timer on an untuned broker); a bare number is seconds",
    default: '240s',
    parse: duration({ min: 1, max: 86_400_000, bare: 's' }),
  },
};
