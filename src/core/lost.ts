/**
 * A service lost during a run is an environment error, not a failed experiment: the broker's
 * connection closes, the database's connections close, the management API refuses. The first
 * loss ends the run at once (exit 2, one line naming the service and its masked URL), and the
 * reports say "error" with the service instead of blaming the experiment.
 */
import { text } from './text.js';
import { EnvError } from './errors.js';
import { maskUrl } from './urls.js';

export type ServiceName = 'RabbitMQ' | 'PostgreSQL' | 'RabbitMQ management API';

export const LOST_HINT = 'run `mqlab up` (or bring the service back), then re-run: the next run starts clean';

/** exit code of a child process (runChild) that lost a service; EX_TEMPFAIL of sysexits.h */
export const CHILD_LOST_EXIT = 75;

export class ServiceLost extends EnvError {
  constructor(
    readonly service: ServiceName,
    readonly url: string,
    /** why it is lost, in words (not Error.cause, which is the standard's original error) */
    readonly reason: string,
  ) {
    super(`${service} at ${maskUrl(url)}: ${reason}`, LOST_HINT);
    this.name = 'ServiceLost';
  }
}

/** Collects the first loss of a run; `lost` rejects with it, to race against the lab. */
export class LossWatch {
  first: ServiceLost | null = null;
  readonly lost: Promise<never>;
  private fail!: (e: ServiceLost) => void;
  private readonly listeners: (() => void)[] = [];
  /** services a lab stopped on purpose (src/services/control.ts): their losses are the experiment */
  private readonly expected = new Set<ServiceName>();
  /** when each planned outage ended (Date.now) */
  private readonly outageEnded = new Map<ServiceName, number>();

  constructor() {
    this.lost = new Promise<never>((_, reject) => (this.fail = reject));
    this.lost.catch(() => {});
  }

  /** while `on`, a loss of `service` (for RabbitMQ: its management API too) is not reported */
  expect(service: 'RabbitMQ' | 'PostgreSQL', on: boolean): void {
    const names: ServiceName[] = service === 'RabbitMQ' ? ['RabbitMQ', 'RabbitMQ management API'] : [service];
    for (const n of names) {
      if (on) this.expected.add(n);
      else if (this.expected.delete(n)) this.outageEnded.set(n, Date.now());
    }
  }

  /**
   * `since`: when the observation that found the loss began. One begun during a planned outage is the
   * outage's, even when its answer comes after the service is back (the database probe's "the database
   * system is shutting down", answered 3 s after it began and 0.3 s after db-outage's PostgreSQL was
   * ready again, in `mqlab all --jobs 4` under load)
   */
  report(e: ServiceLost, since = Date.now()): void {
    if (this.first || this.expected.has(e.service)) return;
    if (since <= (this.outageEnded.get(e.service) ?? -Infinity)) return;
    this.first = e;
    this.fail(e);
    for (const l of this.listeners) l();
  }

  onLoss(listener: () => void): void {
    this.listeners.push(listener);
  }
}

/** the socket-level codes that mean "the service went away" (node, postgres.js, amqplib) */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/** PostgreSQL's SQLSTATEs for a server going away or not there yet: admin_shutdown, crash_shutdown, cannot_connect_now ("the database system is shutting down") */
const SERVER_GONE = new Set(['57P01', '57P02', '57P03']);

/** does PostgreSQL say it is shutting down, crashed or still starting (the service, not the lab)? */
export const isServerGone = (err: unknown) => SERVER_GONE.has(text((err as { code?: unknown })?.code));

/** does this error say a connection went away (rather than the lab doing something wrong)? */
export function isConnectionLoss(err: unknown): boolean {
  const e = err as { code?: unknown; cause?: { code?: unknown }; message?: unknown };
  if (typeof e?.code === 'string' && NETWORK_CODES.has(e.code)) return true;
  if (typeof e?.cause?.code === 'string' && NETWORK_CODES.has(e.cause.code)) return true;
  if (isServerGone(err)) return true;
  const msg = text(e?.message);
  return /Connection closed|Socket closed|Unexpected close|Channel (closed|ended)|CONNECTION_FORCED|connection lost|ECONNRESET|ECONNREFUSED/i.test(
    msg,
  );
}

/** a short cause from a close/error event, without a stack */
export function lossCause(err: unknown, fallback: string): string {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  const msg = (text(e?.message).split('\n')[0] ?? '').trim();
  const code = typeof e?.code === 'string' || typeof e?.code === 'number' ? String(e.code) : '';
  const detail = msg || code;
  return detail ? `${fallback} (${detail})` : fallback;
}
