/**
 * Every lab, in the order `mqlab all` runs them. A new lab is one folder under labs/ plus one
 * entry here. Entries are metadata only; the lab's code loads when the lab runs.
 */
import type { LabEntry } from '../src/lab.js';
import { parseDuration } from '../src/duration.js';
import { parseLimit, parseStatus } from './archive/options.js';

export const registry: LabEntry[] = [
  {
    name: 'retry',
    title: 'limited delayed retry and poison-message isolation',
    proves:
      'A transient failure is retried through a 500 ms TTL delay queue with an attempt header (1, 2, 3), ' +
      'the retry copy is confirmed before the original is acked, the poison message is rejected without ' +
      'requeue into the DLQ with an x-death entry of reason rejected, and exactly two business rows exist.',
    floorMs: 1000,
    load: () => import('./retry/lab.js'),
  },
  {
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
    load: () => import('./archive/lab.js'),
    tools: [
      {
        name: 'purge',
        description: 'retention: delete the archived rows older than a duration (e.g. --older-than 30d)',
        options: [{ flags: '--older-than <duration>', description: 'age of the rows to delete: 30d, 12h, 90m, 45s', parse: parseDuration, required: true }],
        load: async () => (await import('./archive/tools.js')).purge,
      },
      {
        name: 'list',
        description: 'show the archived dead letters, newest first',
        options: [
          { flags: '--status <status>', description: 'only rows in this state: ARCHIVED, IN_PROGRESS or FIXED', parse: parseStatus },
          { flags: '--limit <n>', description: 'at most this many rows', default: 50, parse: parseLimit },
        ],
        load: async () => (await import('./archive/tools.js')).list,
      },
    ],
  },
];

export function findLab(name: string): LabEntry | undefined {
  return registry.find((l) => l.name === name);
}
