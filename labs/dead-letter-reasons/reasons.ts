/**
 * The pure half of dead-letter-reasons: what a dead letter's headers say (classifyDeadLetter), what
 * each path must show on a given broker version (expectedDeadLetters), and the summary line.
 *
 * Version facts (measured here on 3.10.8, 4.0.5 and 4.3.6; 4.1–4.2 read in rabbit_dead_letter.erl, mc.erl, rabbit_fifo.erl):
 * - the four reasons, x-death keyed by (queue, reason), x-first-death-* and the removal of `expiration`
 *   (kept as x-death `original-expiration`) are the same on every line; from 4.0 (3.13.3 behind a feature
 *   flag) the entries are newest first, while 3.10 puts the entry just updated first and reverses the rest
 *   on each update (rabbit_dead_letter update_x_death_header, v3.10.8): read x-death[0] only;
 * - a quorum queue past x-delivery-limit dead-letters with reason `delivery_limit` on 3.10.8 too;
 * - x-last-death-{reason,queue,exchange} exist from 3.13 (message containers) on; 3.10 has none.
 */
import { capabilities, deadLetterHistory, firstDeath, text } from '../../src/kit/index.js';

export const QUEUE_TTL_MS = 100;
export const MESSAGE_TTL_MS = 150;
export const RETRY_TTL_MS = 100;
export const MAX_LENGTH = 1;
export const DELIVERY_LIMIT = 2;

/** one message dies once on each of these; `twice` dies twice on the same (queue, reason) */
export const SINGLE_PATHS = ['queue-ttl', 'message-ttl', 'max-length', 'reject', 'delivery-limit'] as const;
export type PathName = (typeof SINGLE_PATHS)[number] | 'twice';
const REASONS = ['expired', 'maxlen', 'rejected', 'delivery_limit'] as const;

interface DeathRef {
  reason: string;
  queue: string;
  exchange: string;
}

/** what a dead letter says about its newest death, read from its headers and properties */
export interface DeadLetterView {
  reason: string | null;
  queue: string | null;
  count: number;
  first: DeathRef | null;
  /** x-last-death-* (3.13+); null when the broker does not write them */
  last: DeathRef | null;
  /** the `expiration` property the dead letter still carries (null: removed) */
  expiration: string | null;
  /** x-death[0].original-expiration: the expiration it had when it died */
  originalExpiration: string | null;
  /** every x-death entry as reason/queue×count, newest first */
  history: string[];
}

export function classifyDeadLetter(
  headers: Record<string, unknown>,
  properties: { expiration?: unknown } = {},
): DeadLetterView {
  const entries = deadLetterHistory(headers);
  const newest = entries[0];
  const f = firstDeath(headers);
  const last = (k: string) =>
    headers[`x-last-death-${k}`] === undefined ? null : String(headers[`x-last-death-${k}`]);
  return {
    reason: newest?.reason ?? null,
    queue: newest?.queue ?? null,
    count: newest?.count ?? 0,
    first: f.reason === null ? null : { reason: f.reason, queue: f.queue ?? '', exchange: f.exchange ?? '' },
    last:
      last('reason') === null
        ? null
        : { reason: last('reason')!, queue: last('queue') ?? '', exchange: last('exchange') ?? '' },
    expiration:
      properties.expiration === undefined || properties.expiration === null ? null : text(properties.expiration),
    originalExpiration: newest?.originalExpiration ?? null,
    history: entries.map((e) => `${e.reason}/${e.queue}×${e.count}`),
  };
}

const ref = (d: DeathRef | null) => (d ? `${d.reason}/${d.queue}/${d.exchange}` : 'absent');

/** the one-line form a check compares: newest death, count, first and last death headers */
export function describeDeadLetter(v: Pick<DeadLetterView, 'reason' | 'queue' | 'count' | 'first' | 'last'>): string {
  return `${v.reason ?? 'none'} ${v.queue ?? 'none'} count=${v.count} first=${ref(v.first)} last=${ref(v.last)}`;
}

interface ExpectedDeadLetter {
  path: PathName;
  view: Pick<DeadLetterView, 'reason' | 'queue' | 'count' | 'first' | 'last' | 'originalExpiration' | 'history'>;
  /** the message that must land in the DLQ (max-length: the oldest) */
  messageId: string;
  /** deliveries before the broker gave up (delivery-limit path) */
  deliveries?: number;
}

export interface PathQueues {
  business: string;
  retry: string;
  work: Record<PathName, string>;
}

/** what each path must show on `version`, for queues named as in the lab's topology */
export function expectedDeadLetters(version: string, q: PathQueues): Record<PathName, ExpectedDeadLetter> {
  const lastHeaders = capabilities(version).lastDeathHeaders;
  const once = (
    path: PathName,
    reason: string,
    messageId: string,
    extra: Partial<ExpectedDeadLetter> = {},
    originalExpiration: string | null = null,
  ): ExpectedDeadLetter => {
    const death = { reason, queue: q.work[path], exchange: q.business };
    return {
      path,
      messageId,
      view: {
        reason,
        queue: death.queue,
        count: 1,
        first: death,
        last: lastHeaders ? death : null,
        originalExpiration,
        history: [`${reason}/${death.queue}×1`],
      },
      ...extra,
    };
  };
  const twiceDeath = { reason: 'rejected', queue: q.work.twice, exchange: q.business };
  return {
    'queue-ttl': once('queue-ttl', 'expired', 'queue-ttl'),
    'message-ttl': once('message-ttl', 'expired', 'message-ttl', {}, String(MESSAGE_TTL_MS)),
    'max-length': once('max-length', 'maxlen', 'oldest'),
    reject: once('reject', 'rejected', 'reject'),
    // same reason on 3.10.8, 4.0.5 and 4.3.6 (measured): the counter past the limit (3.10 every return, 4.0–4.2 the
    // acquired count, 4.3 the delivery count: rabbit_fifo return_one), which reject(requeue=true) raises on each
    'delivery-limit': once('delivery-limit', 'delivery_limit', 'delivery-limit', { deliveries: DELIVERY_LIMIT + 1 }),
    twice: {
      path: 'twice',
      messageId: 'twice',
      view: {
        reason: 'rejected',
        queue: q.work.twice,
        count: 2,
        first: twiceDeath,
        last: lastHeaders ? twiceDeath : null,
        originalExpiration: null,
        history: [`rejected/${q.work.twice}×2`, `expired/${q.retry}×1`],
      },
    },
  };
}

/** dead letters per reason over the single-death paths, in REASONS order, plus any other reason seen */
export function tallyReasons(views: (DeadLetterView | undefined)[]): Record<string, number> {
  const tally: Record<string, number> = Object.fromEntries(REASONS.map((r) => [r, 0]));
  for (const v of views) if (v?.reason) tally[v.reason] = (tally[v.reason] ?? 0) + 1;
  return tally;
}

/** `dead-letter-reasons: expired=2 maxlen=1 rejected=1 delivery_limit=1 expirationRemoved=true countGrowth=[1, 2]` */
export function summaryLine(tally: Record<string, number>, expirationRemoved: boolean, countGrowth: number[]): string {
  const reasons = Object.entries(tally).map(([r, n]) => `${r}=${n}`);
  return `dead-letter-reasons: ${reasons.join(' ')} expirationRemoved=${expirationRemoved} countGrowth=[${countGrowth.join(', ')}]`;
}
