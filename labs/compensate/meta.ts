/** The compensate lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'compensate',
  title: 'idempotent conditional compensation in one transaction',
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
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
