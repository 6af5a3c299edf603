/** The archive lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';
import { listOptions, purgeOptions } from './options.js';

export const meta = defineLab({
  name: 'archive',
  title: 'archiving dead letters into a history table: idempotent, nothing lost, with retention',
  summary: 'dead letters into a history table: idempotent, nothing lost, retention (`mqlab archive purge|list`)',
  seed: '003 §4, §5.3',
  proves:
    'Orders rejected or expired by the broker reach the DLQ with real x-death headers; a separate archiver ' +
    'writes each into dead_letter_archive (business id, payload, original route, first and last death, ' +
    'attempts, status, archived_at) before acking; killed after a commit and before its ack, the letter comes ' +
    'back and ON CONFLICT DO NOTHING keeps one row; a letter without a business id is refused by the table, ' +
    'recorded in the failure table and acked; status only moves ARCHIVED → IN_PROGRESS → FIXED; ' +
    'purge --older-than 30d deletes only the old row.',
  floorMs: 200,
  options: {},
  checks: [
    'deadLetters',
    'firstArchiverExitCode',
    'committedBeforeKill',
    'redeliveredToSecondArchiver',
    'duplicateSkipped',
    'rowsForRedelivered',
    'archivedIds',
    'attempts',
    'firstDeath',
    'lastDeath',
    'originalRoute',
    'failureRows',
    'statusLifecycle',
    'backwardsStatusRefused',
    'purged',
    'keptAfterPurge',
    'queueDepthAfter',
  ],
  // the broken variants (MQLAB_FAULT=archive:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'ack-before-commit': {
      breaks: 'the archiver acks a letter before its row commits: the killed one is never handed back',
      fails: ['redeliveredToSecondArchiver', 'duplicateSkipped'],
    },
    'newest-death-only': {
      breaks: 'the archiver reads only x-death[0], the newest death',
      fails: ['firstDeath', 'originalRoute'],
    },
    'skip-in-progress': {
      breaks: 'the status goes ARCHIVED to FIXED, skipping IN_PROGRESS: the trigger refuses it',
      fails: ['statusLifecycle', 'backwardsStatusRefused'],
    },
    'old-row-29d': { breaks: 'the old row is 29 days old, inside the 30-day retention', fails: ['purged'] },
    'late-publish': { breaks: 'a producer that was not stopped publishes one more order', fails: ['queueDepthAfter'] },
    'exit-zero': { breaks: 'the first archiver exits 0 instead of being killed', fails: ['firstArchiverExitCode'] },
    'no-dedupe': {
      breaks: 'the archive insert has no ON CONFLICT: the redelivered letter hits the unique business id',
      fails: ['failureRows'],
    },
    'oldest-death-only': {
      breaks: 'the archiver reads only the oldest x-death entry',
      fails: ['attempts', 'lastDeath'],
    },
    'business-acks-one': {
      breaks: 'the business consumer acks an order it should reject: one dead letter less',
      fails: ['deadLetters'],
    },
    'kill-before-commit': {
      breaks: 'the first archiver is killed before its commit, not after',
      fails: ['committedBeforeKill'],
    },
    'skip-redelivered': {
      breaks: 'the second archiver skips redelivered letters',
      fails: ['rowsForRedelivered', 'archivedIds', 'keptAfterPurge'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    'archiver-killed':
      'archiver-run1 committed the row of its first letter and was SIGKILLed before the ack; every dead letter, the killed one included, is ready in the DLQ again; archiver-run2 has not started',
  },
  tools: [
    {
      name: 'purge',
      description: 'retention: delete the archived rows older than a duration (e.g. --older-than 30d)',
      options: purgeOptions,
      load: async () => (await import('./tools.js')).purge,
    },
    {
      name: 'list',
      description: 'show the archived dead letters, newest first',
      options: listOptions,
      load: async () => (await import('./tools.js')).list,
    },
  ],
});

/** a broken variant of archive */
export type Fault = FaultName<typeof meta.faults>;
