/**
 * TEST ONLY: the compensate lab's broken variants (MQLAB_FAULT=compensate:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'unconditional-release': {
    breaks: "the release drops its WHERE state = 'RESERVED': a second attempt returns the stock again",
    fails: ['applied', 'changedRows', 'available', 'raceApplied', 'raceAvailable'],
  },
  'wrong-state': {
    breaks: 'the release writes CANCELLED instead of RELEASED',
    fails: ['reservation', 'raceReservation'],
  },
  serialize: {
    breaks: 'the "race" attempts run one after the other: nothing overlaps',
    fails: ['checkThenActOverlapped', 'checkThenActApplied', 'checkThenActAvailable', 'raceOverlapped'],
  },
});

/** a broken variant of compensate */
export type Fault = keyof typeof faults;
