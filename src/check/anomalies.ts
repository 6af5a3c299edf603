/**
 * What mqlab check calls wrong, in the words of Team RabbitMQ's Jepsen checker, and how one
 * scenario's ledger (what was published, what effects and dead letters appeared, what was left in
 * the queue) is judged. Pure: unit-tested beside.
 */
export const ANOMALIES = ['lost', 'duplicated', 'stuck', 'poison-not-parked', 'unexpected'] as const;
export type AnomalyKind = (typeof ANOMALIES)[number];

/** each anomaly: what it means, and the lab that teaches its fix */
export const VOCABULARY: Record<AnomalyKind, { means: string; lab: string }> = {
  lost: { means: 'confirmed by the broker, no effect, not dead-lettered', lab: 'auto-ack-loss' },
  duplicated: { means: 'two effects or more for one message id', lab: 'consumer-crash' },
  stuck: { means: 'still in the work queue (ready or unacked) at the end', lab: 'auto-ack-loss' },
  'poison-not-parked': {
    means: 'a poison message not in the dead-letter queue within its delivery budget, or the queue blocked behind it',
    lab: 'retry-dlq',
  },
  unexpected: { means: 'an effect for a message id that was never published', lab: 'consumer-crash' },
};

export interface Published {
  id: string;
  kind: 'work' | 'poison';
}

export interface DeadLetter {
  id: string | undefined;
  /** the first x-death reason (rejected, delivery_limit, expired …); null: no x-death (the consumer published it there) */
  reason: string | null;
}

/** one scenario's observations */
export interface Ledger {
  /** every message id confirmed (an id published twice is here once) */
  published: readonly Published[];
  /** effects that appeared during the scenario, by message id */
  effects: ReadonlyMap<string, number>;
  dead: readonly DeadLetter[];
  /** ids still in the work queue at the end: ready, or delivered and not settled */
  inQueue: readonly string[];
  /** how often the proxy saw each message id delivered */
  deliveries: ReadonlyMap<string, number>;
  /** a poison message must be dead-lettered within this many deliveries */
  poisonDeliveries: number;
}

export interface Anomaly {
  kind: AnomalyKind;
  messageIds: string[];
  /** one line per id, why */
  detail: string[];
}

export function judge(l: Ledger): Anomaly[] {
  const found = new Map<AnomalyKind, Anomaly>();
  const add = (kind: AnomalyKind, id: string, why: string) => {
    const a = found.get(kind) ?? { kind, messageIds: [], detail: [] };
    if (!a.messageIds.includes(id)) a.messageIds.push(id);
    a.detail.push(`${id}: ${why}`);
    found.set(kind, a);
  };
  const queued = new Set(l.inQueue);
  const deadIds = new Map(l.dead.filter((d) => d.id !== undefined).map((d) => [d.id!, d.reason]));
  const times = (id: string) => l.deliveries.get(id) ?? 0;
  let unparked = false;
  for (const p of l.published.filter((x) => x.kind === 'poison')) {
    const reason = deadIds.has(p.id) ? deadIds.get(p.id) : undefined;
    const n = times(p.id);
    let why: string | null = null;
    if (reason === 'delivery_limit')
      why = `dead-lettered by the queue's delivery limit after ${n} deliveries, not by the consumer`;
    else if (reason !== undefined && n > l.poisonDeliveries)
      why = `delivered ${n} times before it was dead-lettered (at most ${l.poisonDeliveries})`;
    else if (reason === undefined && queued.has(p.id)) why = `delivered ${n} times, still in the work queue`;
    else if (reason === undefined) why = `delivered ${n} times, then settled without a dead letter (dropped)`;
    if (why) {
      unparked = true;
      add('poison-not-parked', p.id, why);
    }
  }
  for (const p of l.published.filter((x) => x.kind === 'work')) {
    const effects = l.effects.get(p.id) ?? 0;
    if (queued.has(p.id)) {
      if (unparked) add('poison-not-parked', p.id, 'blocked behind the poison message: still in the work queue');
      else
        add('stuck', p.id, `still in the work queue at the end (delivered ${times(p.id)} times, ${effects} effects)`);
    } else if (effects === 0 && !deadIds.has(p.id))
      add('lost', p.id, `confirmed, delivered ${times(p.id)} times, no effect, not dead-lettered`);
    if (effects >= 2) add('duplicated', p.id, `${effects} effects (delivered ${times(p.id)} times)`);
  }
  const known = new Set(l.published.map((p) => p.id));
  for (const [id, n] of l.effects)
    if (!known.has(id)) add('unexpected', id, `${n} effect(s) for an id never published`);
  return ANOMALIES.flatMap((k) => found.get(k) ?? []);
}
