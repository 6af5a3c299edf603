/** The at-most-once-drop lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, parseOptions } from '../../src/kit/index.js';
import { options } from './options.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

/**
 * dead_letter_worker_publisher_confirm_timeout on mqlab's services (config/rabbitmq/advanced.config): the
 * worker tries a held letter once per period, counted from when it took the letter
 */
const WORKER_TIMER_MS = 1000;

export const meta = defineLab({
  name: 'at-most-once-drop',
  title: 'the default dead-letter strategy drops a letter whose target is unbound',
  proves:
    'With a dead-letter policy that names no strategy (at-most-once, the default) on a quorum queue, a message ' +
    "rejected without requeue while the target queue is unbound is gone: the source's counters hold no letter " +
    'once they show the markers published after it, and after the binding is restored nothing arrives in the target, ' +
    "for longer than the broker's dead-letter worker needs. With dead-letter-strategy=at-least-once but the overflow " +
    "left at drop-head the broker falls back to at-most-once: the letter is dropped the same way, and only the broker's " +
    "log says so (quoted from the node's log on mqlab's own services). With at-least-once and overflow=reject-publish " +
    'the same letter is held in the source (messages=1 ready=0 unacked=0), still held once the markers are taken off ' +
    '(not purged: on 4.3 a purge removes held letters), and delivered by the broker once the target is bound again ' +
    '(x-death: source, rejected, count 1).',
  // what it must wait for (docs/labs/at-most-once-drop.md, Timing): the window of each phase (the quorum tick
  // that counts its markers, 1 s there, falls within it), and in phase 3 one more period of the worker's timer:
  // it tries again as the window ends, before the reading with the markers gone (a tick after theirs) lets the
  // lab rebind, so the try that finds the target bound is the one a period later
  floorMs: 3 * parseOptions(options).windowMs + WORKER_TIMER_MS,
  // no database in this process: the run opens no connection to PostgreSQL
  database: false,
  options,
  checks: [
    'dropStrategy',
    'targetUnbound',
    'heldAfterReject',
    'droppedArrivals',
    'fallbackPolicy',
    'fallbackHeld',
    'fallbackArrivals',
    'fallbackWarningLogged',
    'holdStrategy',
    'heldWhileUnbound',
    'heldAfterMarkers',
    'acceptedWhileHeld',
    'heldLetterDelivered',
  ],
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
