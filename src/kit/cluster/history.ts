/**
 * A run's history of messages: every publish, confirm, nack, confirm timeout, publish lost with
 * its connection, and consumed copy, each with its time and the node it went through; and the
 * injected faults (a kill, a cut, a pause) on the same clock. The checks that matter across a
 * failure are computed from it (analyse, historyChecks): confirmed messages lost, duplicates that
 * are not of unconfirmed ids, ids delivered although never confirmed. Labs record; the engine
 * checks, and the history goes into --json (facts.history) and onto the --html timeline (noted()).
 */
import { check } from '../../report/checks.js';

type HistoryKind = 'publish' | 'confirm' | 'nack' | 'timeout' | 'lost' | 'consume' | 'fault';

export interface HistoryEntry {
  /** Date.now() */
  t: number;
  kind: HistoryKind;
  /** the message id (none for a fault) */
  id?: number;
  /** the node the client went through (a fault: the node it hit) */
  node: string;
  /** consume: the broker flagged the copy redelivered */
  redelivered?: boolean;
  /** fault: what was done (kill, cut, heal, pause, resume) */
  what?: string;
}

/** the kinds that end a publish without a confirm: the id is unconfirmed (a copy may still be in the queue) */
const UNCONFIRMED: ReadonlySet<HistoryKind> = new Set(['nack', 'timeout', 'lost']);

export class History {
  readonly entries: HistoryEntry[] = [];

  constructor(
    private readonly now: () => number = Date.now,
    /** hears every entry that is not routine (nack, timeout, lost, fault): the event log, for the timeline */
    private readonly note?: (e: HistoryEntry) => void,
  ) {}

  private add(e: Omit<HistoryEntry, 't'>): void {
    const entry = { t: this.now(), ...e };
    this.entries.push(entry);
    if (UNCONFIRMED.has(e.kind) || e.kind === 'fault') this.note?.(entry);
  }

  publish(id: number, node: string): void {
    this.add({ kind: 'publish', id, node });
  }
  confirm(id: number, node: string): void {
    this.add({ kind: 'confirm', id, node });
  }
  nack(id: number, node: string): void {
    this.add({ kind: 'nack', id, node });
  }
  timeout(id: number, node: string): void {
    this.add({ kind: 'timeout', id, node });
  }
  lost(id: number, node: string): void {
    this.add({ kind: 'lost', id, node });
  }
  consume(id: number, node: string, redelivered: boolean): void {
    this.add({ kind: 'consume', id, node, redelivered });
  }
  /** an injected fault on the history's clock; its time */
  injected(what: string, node: string): number {
    this.add({ kind: 'fault', what, node });
    return this.entries[this.entries.length - 1]!.t;
  }

  /** the history for --json: times relative to the first entry, nodes by index */
  toJSON(): { t0: number; nodes: string[]; entries: (string | number)[][] } {
    const t0 = this.entries[0]?.t ?? 0;
    const nodes = [...new Set(this.entries.map((e) => e.node))];
    return {
      t0,
      nodes,
      // [ms since t0, kind, id or what, node index, 'r' when redelivered]
      entries: this.entries.map((e) => [
        e.t - t0,
        e.kind,
        e.id ?? e.what ?? '',
        nodes.indexOf(e.node),
        ...(e.redelivered ? ['r'] : []),
      ]),
    };
  }
}

export interface HistoryAnalysis {
  /** distinct ids published */
  published: number;
  confirmed: ReadonlySet<number>;
  /** ids with at least one publish that ended unconfirmed (nack, timeout, lost) */
  unconfirmed: ReadonlySet<number>;
  /** distinct ids consumed */
  consumed: ReadonlySet<number>;
  /** confirmed ids never consumed */
  lostConfirmed: number[];
  /** ids consumed more than once as a fresh (not redelivered) copy: the queue held them twice */
  duplicates: number[];
  /** duplicates of ids that never went unconfirmed: a producer sent a confirmed id again */
  strayDuplicates: number[];
  /** ids never confirmed and yet consumed: unconfirmed is not undelivered */
  unconfirmedThenDelivered: number[];
}

export function analyse(entries: readonly HistoryEntry[]): HistoryAnalysis {
  const published = new Set<number>();
  const confirmed = new Set<number>();
  const unconfirmed = new Set<number>();
  const fresh = new Map<number, number>();
  for (const e of entries) {
    if (e.id === undefined) continue;
    if (e.kind === 'publish') published.add(e.id);
    else if (e.kind === 'confirm') confirmed.add(e.id);
    else if (UNCONFIRMED.has(e.kind)) unconfirmed.add(e.id);
    else if (e.kind === 'consume') fresh.set(e.id, (fresh.get(e.id) ?? 0) + (e.redelivered ? 0 : 1));
  }
  const consumed = new Set(fresh.keys());
  const duplicates = [...fresh].filter(([, n]) => n > 1).map(([id]) => id);
  const sorted = (xs: Iterable<number>) => [...xs].sort((a, b) => a - b);
  return {
    published: published.size,
    confirmed,
    unconfirmed,
    consumed,
    lostConfirmed: sorted([...confirmed].filter((id) => !consumed.has(id))),
    duplicates: sorted(duplicates),
    strayDuplicates: sorted(duplicates.filter((id) => !unconfirmed.has(id))),
    unconfirmedThenDelivered: sorted([...consumed].filter((id) => !confirmed.has(id) && published.has(id))),
  };
}

/** the entries of `kinds` in [from, to) (Date.now times), optionally through one node */
export function between(
  entries: readonly HistoryEntry[],
  kinds: readonly HistoryKind[],
  from: number,
  to: number,
  node?: string,
): HistoryEntry[] {
  return entries.filter((e) => kinds.includes(e.kind) && e.t >= from && e.t < to && (!node || e.node === node));
}

/** ids published through `node` at or after `from` that were confirmed before `to` */
export function confirmedAfter(h: readonly HistoryEntry[], node: string, from: number, to: number): number[] {
  const sent = new Set(h.filter((e) => e.kind === 'publish' && e.node === node && e.t >= from).map((e) => e.id!));
  return [
    ...new Set(
      h.filter((e) => e.kind === 'confirm' && e.node === node && e.t < to && sent.has(e.id!)).map((e) => e.id!),
    ),
  ];
}

/** the first confirm through `node` of an id published there at or after `from` (null: none) */
export function firstConfirmAfter(h: readonly HistoryEntry[], node: string, from: number): number | null {
  const sent = new Set(h.filter((e) => e.kind === 'publish' && e.node === node && e.t >= from).map((e) => e.id!));
  return h.find((e) => e.kind === 'confirm' && e.node === node && sent.has(e.id!))?.t ?? null;
}

/** each publish through `node` sent during [from, to), with its first outcome (confirm, timeout, nack, lost) when it had one */
export function firstOutcomes(h: readonly HistoryEntry[], node: string, from: number, to: number) {
  const sent = new Map(
    h.filter((e) => e.kind === 'publish' && e.node === node && e.t >= from && e.t < to).map((e) => [e.id!, e.t]),
  );
  const first = new Map<number, HistoryEntry>();
  for (const e of h)
    if (
      e.node === node &&
      e.id !== undefined &&
      sent.has(e.id) &&
      e.kind !== 'publish' &&
      e.kind !== 'consume' &&
      !first.has(e.id)
    )
      first.set(e.id, e);
  return [...sent].map(([id, sentAt]) => ({ id, sentAt, first: first.get(id) ?? null }));
}

/** what the publishes through `node` sent during [from, to) came to: confirmed, timed out, nacked, lost (each id once, by its first outcome) */
export function outcomes(h: readonly HistoryEntry[], node: string, from: number, to: number) {
  const sent = firstOutcomes(h, node, from, to);
  const first = new Map(sent.filter((o) => o.first).map((o) => [o.id, o.first!.kind]));
  const count = (k: string) => [...first.values()].filter((v) => v === k).length;
  const lateConfirms = h.filter((e) => e.kind === 'confirm' && e.node === node && first.get(e.id!) === 'timeout');
  return {
    sent: sent.length,
    confirm: count('confirm'),
    timeout: count('timeout'),
    nack: count('nack'),
    lost: count('lost'),
    /** confirms that came after their timeout (the first outcome was the deadline) */
    confirmedLate: new Set(lateConfirms.map((e) => e.id)).size,
  };
}

/**
 * The three checks every failure lab shares, by the names quorum-failover has always printed:
 * no confirmed id lost, every id 1…messages consumed, no duplicate of an id that was confirmed.
 */
export function historyChecks(a: HistoryAnalysis, messages: number) {
  const inRange = [...a.consumed].filter((id) => id >= 1 && id <= messages).length;
  return [
    check('confirmedLost', 0, a.lostConfirmed.length),
    check('everyIdConsumed', messages, inRange),
    check('duplicatesNotUnconfirmed', 0, a.strayDuplicates.length),
  ];
}

/**
 * The ids whose first publish got no confirm from the node it went through (a timeout, a nack, a loss
 * with the connection; a late confirm from that node counts as a confirm), and how many of them a
 * later publish through another node had confirmed: what a producer that gives a node up owes.
 */
export function resentElsewhere(h: readonly HistoryEntry[]): { unconfirmed: number; confirmedElsewhere: number } {
  const firstNode = new Map<number, string>();
  for (const e of h)
    if (e.kind === 'publish' && e.id !== undefined && !firstNode.has(e.id)) firstNode.set(e.id, e.node);
  const confirmedBy = new Map<number, Set<string>>();
  for (const e of h)
    if (e.kind === 'confirm' && e.id !== undefined)
      (confirmedBy.get(e.id) ?? confirmedBy.set(e.id, new Set()).get(e.id)!).add(e.node);
  let unconfirmed = 0;
  let confirmedElsewhere = 0;
  for (const [id, node] of firstNode) {
    const by = confirmedBy.get(id);
    if (by?.has(node)) continue;
    unconfirmed++;
    if (by && by.size > 0) confirmedElsewhere++;
  }
  return { unconfirmed, confirmedElsewhere };
}

/** every id its first node left unconfirmed was confirmed through another node (the resend's confirms) */
export function unconfirmedResentCheck(h: readonly HistoryEntry[]) {
  const r = resentElsewhere(h);
  return check('unconfirmedResent', r.unconfirmed, r.confirmedElsewhere);
}

/** an entry as an event's fields (ctx.log.emit('history', …)): on the timeline with its node */
export const historyEvent = (e: HistoryEntry): Record<string, string> => ({
  status: e.kind === 'fault' ? `fault_${e.what}` : e.kind,
  ...(e.id !== undefined ? { messageId: String(e.id) } : {}),
  node: e.node,
});
