/**
 * TEST ONLY: the at-most-once-drop lab's broken variants (MQLAB_FAULT=at-most-once-drop:<name>, src/lab/fault.ts):
 * what each breaks and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
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
});

/** a broken variant of at-most-once-drop */
export type Fault = keyof typeof faults;
