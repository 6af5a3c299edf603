/** The at-most-once-drop lab's options: the typed object its code gets, and the flags it is parsed from. */
import { duration, type OptionSpecs } from '../../src/kit/index.js';

interface DropOptions {
  /** how long the target stays unbound in each phase after the rejection, at least (and until the source's counters show the markers) */
  windowMs: number;
  /** how long to wait after the rebind for the broker's dead-letter worker (phase 2) */
  recoverTimeoutMs: number;
}

export const options: OptionSpecs<DropOptions> = {
  windowMs: {
    flag: '--window <duration>',
    description:
      "how long the target stays unbound in each phase after the rejection, at least: one tick of the broker's dead-letter worker on mqlab's services (and until the source's counters show the markers)",
    default: '1s',
    parse: duration({ min: 0, max: 600_000 }),
  },
  recoverTimeoutMs: {
    flag: '--recover-timeout <duration>',
    description:
      "how long to wait after the rebind for the broker's dead-letter worker (180 s timer on an untuned broker); a bare number is seconds",
    default: '240s',
    parse: duration({ min: 1, max: 86_400_000, bare: 's' }),
  },
};
