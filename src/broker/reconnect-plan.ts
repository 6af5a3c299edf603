/**
 * The pure parts of reconnecting: which URL to try next, how long to wait before each try, and
 * which publishes a lost connection left unconfirmed. No sockets here (src/broker/reconnect.ts
 * uses them), so they are unit-tested.
 */

export interface Backoff {
  /** the wait after the first failed round over every URL; doubled each round */
  initialMs: number;
  /** no single wait is longer */
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 100, maxMs: 2000 };

/** the wait after `n` earlier waits (0: the first): initialMs doubled n times, at most maxMs */
export const backoffMs = (b: Backoff, n: number): number => Math.min(b.maxMs, b.initialMs * 2 ** n);

/**
 * The attempts, in order, within `totalMs`: every URL once per round, starting after `startAt`
 * (the URL that was in use is tried last in the first round), then a wait that doubles from
 * `initialMs` up to `maxMs`. Each entry says the URL index and the wait before it.
 */
export function* attemptPlan(
  urlCount: number,
  backoff: Backoff,
  startAt = -1,
): Generator<{ index: number; waitMs: number }> {
  if (urlCount < 1) return;
  for (let round = 0; ; round++) {
    for (let k = 0; k < urlCount; k++) {
      const index = (startAt + 1 + k) % urlCount;
      const waitMs = round > 0 && k === 0 ? backoffMs(backoff, round - 1) : 0;
      yield { index, waitMs };
    }
  }
}

type PublishState = 'pending' | 'confirmed' | 'nacked' | 'lost';

/**
 * What happened to each publish, by message id. A publish is `pending` until the broker acks
 * (confirmed) or nacks it, or its connection dies first (lost). unconfirmed() is every id not
 * confirmed: the ids a producer must resend after a reconnect.
 */
export class ConfirmLedger<M = unknown> {
  private readonly state = new Map<string, { state: PublishState; message: M }>();

  published(id: string, message: M): void {
    this.state.set(id, { state: 'pending', message });
  }

  settle(id: string, state: Exclude<PublishState, 'pending'>): void {
    const s = this.state.get(id);
    // a late ack of an id already resent over a new connection still counts; a loss never undoes a confirm
    if (s && s.state !== 'confirmed') s.state = state;
  }

  /** the connection died: every pending publish on it is lost */
  loseAllPending(): string[] {
    const lost: string[] = [];
    for (const [id, s] of this.state)
      if (s.state === 'pending') {
        s.state = 'lost';
        lost.push(id);
      }
    return lost;
  }

  stateOf(id: string): PublishState | undefined {
    return this.state.get(id)?.state;
  }

  /** ids neither confirmed nor pending on the live connection: lost with a connection, or nacked */
  unconfirmed(): string[] {
    return [...this.state].filter(([, s]) => s.state === 'lost' || s.state === 'nacked').map(([id]) => id);
  }

  messageOf(id: string): M | undefined {
    return this.state.get(id)?.message;
  }

  confirmed(): string[] {
    return [...this.state].filter(([, s]) => s.state === 'confirmed').map(([id]) => id);
  }

  pending(): number {
    let n = 0;
    for (const s of this.state.values()) if (s.state === 'pending') n++;
    return n;
  }
}
