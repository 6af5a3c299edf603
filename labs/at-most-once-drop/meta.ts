/** The at-most-once-drop lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, parseOptions, type FaultName } from '../../src/kit/index.js';
import { options } from './options.js';

/**
 * dead_letter_worker_publisher_confirm_timeout on mqlab's services (config/rabbitmq/advanced.config): the
 * worker tries a held letter once per period, counted from when it took the letter
 */
const WORKER_TIMER_MS = 1000;

export const meta = defineLab({
  name: 'at-most-once-drop',
  title: 'the default dead-letter strategy drops a letter whose target is unbound',
  summary:
    'the default dead-letter strategy drops a rejected letter whose target is unbound; at-least-once holds the same letter and delivers it',
  seed: '000',
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
  // the broken variants (MQLAB_FAULT=at-most-once-drop:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'at-least-once-in-drop': {
      breaks: 'the drop phase uses at-least-once: the letter is held',
      fails: ['dropStrategy', 'heldAfterReject'],
    },
    'keep-binding': {
      breaks: 'the target is left bound in the drop phase: the letter is routed, not dropped',
      fails: ['targetUnbound', 'droppedArrivals'],
    },
    'fallback-with-reject-publish': {
      breaks: 'the fallback phase sets overflow=reject-publish too: the letter is held, no warning is logged',
      fails: ['fallbackPolicy', 'fallbackHeld', 'fallbackArrivals', 'fallbackWarningLogged'],
    },
    'purge-markers': {
      breaks:
        'the markers are purged instead of taken off: on 4.3 the held letter goes with them and no longer counts toward max-length (3.10 keeps it)',
      fails: ['heldAfterMarkers', 'acceptedWhileHeld'],
    },
    'at-least-once-missing': {
      breaks: 'the hold phase has no at-least-once strategy: nothing is held, nothing delivered',
      fails: ['holdStrategy', 'heldWhileUnbound', 'heldLetterDelivered', 'acceptedWhileHeld'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    dropped:
      'phase 1 (at-most-once): the letter was rejected while the target is unbound, and the first reading of the counters of the source that shows both markers shows no held letter; the target is empty and still unbound',
    'fell-back':
      'phase 2 (at-least-once, but overflow left at drop-head): the broker fell back to at-most-once, nothing is held; the target is empty and still unbound',
    'letter-held':
      'phase 3 (at-least-once with overflow=reject-publish): the same letter is held in the source, also once the markers were taken off; the target is still unbound',
    recovered: "the binding is back and the broker's dead-letter worker delivered the held letter to the target",
  },
});

/** a broken variant of at-most-once-drop */
export type Fault = FaultName<typeof meta.faults>;
