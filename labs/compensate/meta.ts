/** The compensate lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';

export const meta = defineLab({
  name: 'compensate',
  title: 'idempotent conditional compensation in one transaction',
  summary: 'idempotent conditional compensation: two release attempts, stock added once',
  seed: '000 `compensate`',
  proves:
    'Releasing a reservation twice adds stock once: each attempt is one transaction whose first statement ' +
    "is UPDATE … SET state='RELEASED' WHERE state='RESERVED', and stock grows only when that changed a row " +
    '(9 → 10). The same holds when the two attempts race on two connections: the loser waits on the ' +
    "winner's row lock, re-reads the row after the commit and changes nothing; a check-then-act version " +
    '(SELECT, then an unconditional UPDATE) racing the same way releases twice (11).',
  floorMs: 0,
  options: {},
  checks: [
    'applied',
    'changedRows',
    'reservation',
    'available',
    'checkThenActOverlapped',
    'checkThenActApplied',
    'checkThenActAvailable',
    'raceOverlapped',
    'raceApplied',
    'raceReservation',
    'raceAvailable',
  ],
  // the broken variants (MQLAB_FAULT=compensate:<name>): what each breaks, and the checks that must print FAIL
  faults: {
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
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {},
});

/** a broken variant of compensate */
export type Fault = FaultName<typeof meta.faults>;
