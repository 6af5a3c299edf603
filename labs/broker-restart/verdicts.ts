/** The broker-restart lab's account of every id, from the deliveries, the confirms and the rows. */

interface TallyInput {
  /** every id the producer published */
  ids: readonly string[];
  /** effect rows per id */
  rows: readonly { message_id: string; n: number }[];
  deliveries: readonly { id: string; redelivered: boolean; at: number }[];
  /** committed, ack held when the node stopped */
  held: readonly string[];
  /** confirmed by the node before its process exited */
  confirmedAtStop: readonly string[];
  /** Date.now() when the node's process was seen gone */
  goneAt: number;
  /** ids not confirmed when the producer's connection was lost */
  lostAtRestart: readonly string[];
  /** ids confirmed by the end */
  confirmedNow: ReadonlySet<string>;
}

export function tally(i: TallyInput) {
  const after = i.deliveries.filter((d) => d.at > i.goneAt);
  const deliveredAfter = new Set(after.map((d) => d.id));
  const redeliveredAfter = new Set(after.filter((d) => d.redelivered).map((d) => d.id));
  const count = new Map(i.rows.map((r) => [r.message_id, r.n]));
  return {
    /** held deliveries that came back after the restart flagged redelivered */
    heldRedelivered: i.held.filter((id) => redeliveredAfter.has(id)).length,
    /** ids lost at the restart that the broker confirmed after the resend */
    resentConfirmed: i.lostAtRestart.filter((id) => i.confirmedNow.has(id)).length,
    /** messages the queue held at the stop, delivered after it */
    survived: i.confirmedAtStop.filter((id) => deliveredAfter.has(id)).length,
    rows: i.rows.reduce((s, r) => s + r.n, 0),
    duplicates: i.rows.reduce((s, r) => s + Math.max(0, r.n - 1), 0),
    missing: i.ids.filter((id) => !count.get(id)),
    firstDeliveryAfter: after.length ? Math.min(...after.map((d) => d.at)) : null,
  };
}
