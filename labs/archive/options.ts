/** The archive tools' options: the typed objects the handlers get, and the flags they are parsed from. */
import { duration, integer, oneOf, type OptionSpecs } from '../../src/kit/index.js';
import { STATUSES, type ArchiveStatus } from './names.js';

export interface PurgeOptions {
  olderThanMs: number;
}
export interface ListOptions {
  status?: ArchiveStatus;
  limit: number;
}

export const purgeOptions: OptionSpecs<PurgeOptions> = {
  olderThanMs: {
    flag: '--older-than <duration>',
    description: 'age of the rows to delete: 30d, 12h, 90m, 45s',
    required: true,
    parse: duration({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  },
};

export const listOptions: OptionSpecs<ListOptions> = {
  status: {
    flag: '--status <status>',
    description: 'only rows in this state: ARCHIVED, IN_PROGRESS or FIXED',
    parse: oneOf(STATUSES),
  },
  limit: {
    flag: '--limit <n>',
    description: 'at most this many rows',
    default: '50',
    parse: integer(1, Number.MAX_SAFE_INTEGER),
  },
};
