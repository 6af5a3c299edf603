/** The archive lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
import { listOptions, purgeOptions } from './options.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'archive',
  title: 'archiving dead letters into a history table: idempotent, nothing lost, with retention',
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
  faults,
  checkpoints,
  load: () => import('./lab.js'),
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
