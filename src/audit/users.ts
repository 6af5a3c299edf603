/**
 * The user entries a definitions import refuses (rabbit_auth_backend_internal:put_user, v3.10.8 …
 * v4.3.5): the import stops at the first one, before any queue is declared. A user needs a name;
 * `password` and `password_hash` together are refused (both_password_and_password_hash_are_provided);
 * `limits` goes through `validate_user_limits`: a map (or list) of `max-connections` and
 * `max-channels`, each an integer, no other key ("Unrecognised terms"). Such a file is in RabbitMQ's
 * own suite as failing_case19.json (a max-connections of "twomincepies").
 */
import { text } from '../core/text.js';
import type { FileFacts } from './snapshot.js';

type Row = Record<string, unknown>;
const LIMITS = ['max-connections', 'max-channels'];

function limitsProblem(limits: unknown): string | null {
  if (limits === undefined || limits === null) return null;
  if (Array.isArray(limits)) return limits.length === 0 ? null : 'its limits are a list of entries, not an object';
  if (typeof limits !== 'object') return `its limits are ${typeof limits}, not an object`;
  for (const [k, v] of Object.entries(limits as Row)) {
    if (!LIMITS.includes(k)) return `its limits hold '${k}', which is not a user limit (max-connections, max-channels)`;
    if (typeof v !== 'number' || !Number.isInteger(v)) return `its limit ${k} is ${text(v)}, not a whole number`;
  }
  return null;
}

export function invalidUsers(users: readonly Row[]): FileFacts['invalid'] {
  const out: FileFacts['invalid'] = [];
  for (const u of users) {
    const name = typeof u.name === 'string' ? u.name : null;
    const reason =
      name === null
        ? 'it has no name'
        : u.password !== undefined && u.password_hash !== undefined
          ? 'it has both password and password_hash'
          : limitsProblem(u.limits);
    if (reason) out.push({ what: 'user', name: name ?? '(unnamed)', vhost: '', reason });
  }
  return out;
}
