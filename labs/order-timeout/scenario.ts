/** The orders of one order-timeout run and what happens to each (scheduled triggers and compensation, docs/labs/order-timeout.md). */
export const ORDERS = {
  /** never paid; its check message is taken out of the delay queue: only the sweeper can close it (first: alone in the queue) */
  lostCheck: 'lost-check',
  /**
   * never paid; an operator extends its deadline after its check was scheduled: the check comes early.
   * Second, so its check is the first the consumer gets: early by the whole extension (one delay),
   * not by what is left of it after the checks queued before it (ten runs at once on a cluster
   * delayed the sixth check by up to 2 s, past the new deadline).
   */
  extended: 'extended',
  /** never paid: its check closes it */
  unpaid: 'unpaid',
  /** paid before its check fires: the check finds PAID and changes nothing */
  paidEarly: 'paid-early',
  /** paid while its check runs, between the consumer's read and its conditional UPDATE */
  paidDuringCheck: 'paid-during-check',
  /** never paid; its check message is published twice */
  duplicateCheck: 'duplicate-check',
} as const;

/** closed at the end of a correct run: exactly the orders never paid */
export const NEVER_PAID = [ORDERS.duplicateCheck, ORDERS.extended, ORDERS.lostCheck, ORDERS.unpaid].sort();
export const PAID = [ORDERS.paidDuringCheck, ORDERS.paidEarly].sort();
/** the orders whose task the sweeper settles: the lost check, and the early check of the extended order */
export const SWEPT = [ORDERS.extended, ORDERS.lostCheck].sort();

/** check messages the consumer receives: every order's once, the duplicate's twice, the lost one's never */
export const CHECK_DELIVERIES = Object.keys(ORDERS).length; // one order's never, one order's twice

export const checkId = (order: string) => `check-${order}`;
