/**
 * order-timeout — scheduled triggers and compensation (docs/labs/order-timeout.md): a delayed check
 * closes an unpaid order, and only that.
 *
 * Each order is created with its deadline (the database's now + delay) and a pending task, and
 * its check message goes to a TTL delay queue that dead-letters into the check queue. The consumer
 * re-reads the order and closes it only with UPDATE … WHERE status = 'CREATED' AND deadline <= now().
 * A sweeper closes what the pending-task table still shows as due (the check whose message was lost).
 */
import {
  type LabContext,
  type Delivery,
  LabError,
  check,
  checkAtLeast,
  checkAtMost,
  javaList,
  deferred,
  watchStalls,
  labCode,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { names, reset, schema, topology, type OrderNames } from './names.js';
import {
  closeIfDue,
  createOrder,
  dueTasks,
  extendDeadline,
  msUntilLastDue,
  pay,
  readOrder,
  recordCheck,
  settleTask,
  type Guards,
} from './orders.js';
import { CHECK_DELIVERIES, NEVER_PAID, ORDERS, PAID, SWEPT, checkId } from './scenario.js';
import { observe, withStatus } from './observe.js';

/** the steps of the experiment a broken variant may replace (variants.ts, TEST ONLY) */
export interface TimeoutSteps {
  /** the conditional UPDATE's guards: the status is still CREATED, the deadline has passed */
  guards: Guards;
  /** the payment that lands during a check: after the read, before the conditional UPDATE */
  payAroundClose<T>(pay: () => Promise<unknown>, close: () => Promise<T>): Promise<T>;
  /** the sweeper: closes what the pending-task table still shows as due */
  sweep(sweeper: () => Promise<string[]>): Promise<string[]>;
}

export const lab = labCode(meta, {
  topology: (n, o) => topology(names(n), o.delayMs),
  schema: (n) => schema(names(n)),
  reset: (n) => reset(names(n)),

  async run(ctx) {
    const name = names(ctx.names);
    const { delayMs } = ctx.options;
    // the experiment's steps, as taught
    const steps = ctx.steps<TimeoutSteps>({
      guards: { status: true, deadline: true },
      payAroundClose: async (pay, close) => {
        await pay();
        return close();
      },
      sweep: (sweeper) => sweeper(),
    });
    const { guards } = steps;
    // when this process could run nothing (another lab beside it, a loaded machine): not the consumer's lateness
    const stalls = watchStalls();
    const consumed = await consumeChecks(ctx, name, steps);

    // each order's twist right after its check is scheduled, well inside the check's TTL
    let lost: string | undefined;
    for (const id of Object.values(ORDERS)) {
      await createOrder(ctx.db, name, id, delayMs);
      await publishCheck(ctx, name, id);
      if (id === ORDERS.duplicateCheck) await publishCheck(ctx, name, id);
      if (id === ORDERS.lostCheck) lost = await takeLostCheck(ctx, name);
      if (id === ORDERS.paidEarly) await pay(ctx.db, name, id);
      if (id === ORDERS.extended) await extendDeadline(ctx.db, name, id, delayMs);
    }

    await ctx.within(consumed.done, 3 * delayMs + 10_000, `${CHECK_DELIVERIES} check deliveries on ${name.check}`);
    await consumed.cancel();
    stalls.stop();

    const swept = await steps.sweep(() => sweep(ctx, name, guards));
    const o = await observe(ctx.db, name, stalls.spans());
    const depth = (await ctx.broker.depth(name.delay)) + (await ctx.broker.depth(name.check));
    const dup = `deliveries=${o.checkDeliveries[ORDERS.duplicateCheck] ?? 0} closeWrites=${o.closeWrites[ORDERS.duplicateCheck] ?? 0}`;
    const closedTwice = Object.values(o.closeWrites).filter((n) => n > 1).length;

    return {
      lines: [
        `order-timeout: closed=${javaList(withStatus(o, 'CLOSED'))} paid=${javaList(withStatus(o, 'PAID'))} duplicateCheck=(${dup}) sweeperClosed=${javaList(o.sweptBy)}`,
      ],
      checks: [
        check('closedOrders', NEVER_PAID, withStatus(o, 'CLOSED')),
        check('paidOrders', PAID, withStatus(o, 'PAID')),
        check('paymentBetweenReadAndUpdate', true, o.paymentBetweenReadAndUpdate),
        check('duplicateCheck', 'deliveries=2 closeWrites=1', dup),
        check('ordersClosedTwice', 0, closedTwice),
        check('closedBeforeDeadline', 0, o.closedBeforeDeadline),
        checkAtLeast('earliestCloseAfterDeadlineMs', 0, o.earliestCloseMs),
        // one delay beyond the time the consumer was busy with other checks meanwhile (observe.ts)
        checkAtMost('latestCheckCloseAfterDeadlineMs', delayMs + o.latestCheckClose.busyMs, o.latestCheckClose.ms),
        check('sweeperClosed', SWEPT, o.sweptBy),
        check('pendingTasksAfter', 0, o.pendingTasks),
        check('queueDepthAfter', 0, depth),
      ],
      facts: { observed: o, sweeperFound: swept, lostMessage: lost, delayMs },
    };
  },
});

/** the lost check: taken out of the delay queue (basic.get + ack) before it expires; it is the only message there */
async function takeLostCheck(ctx: LabContext, name: OrderNames): Promise<string> {
  const taken = await ctx.broker.get(name.delay);
  if (taken?.messageId !== checkId(ORDERS.lostCheck))
    throw new LabError(`expected ${checkId(ORDERS.lostCheck)} in ${name.delay}, got ${taken?.messageId ?? 'nothing'}`);
  taken.ack();
  ctx.log.emit('lost', { messageId: taken.messageId, queue: name.delay, status: 'taken_and_acked' });
  return taken.messageId;
}

async function publishCheck(ctx: LabContext, name: OrderNames, id: string) {
  await ctx.broker.sendConfirmed(name.delay, id, { messageId: checkId(id) });
  ctx.log.emit('producer', { messageId: checkId(id), destination: name.delay, status: 'confirmed' });
}

/** the check consumer: read, (the late payment lands here), conditional UPDATE, settle the task, ack */
async function consumeChecks(ctx: LabContext, name: OrderNames, steps: TimeoutSteps) {
  const done = deferred();
  let received = 0;
  const consumer = await ctx.broker.consume(
    name.check,
    async (m: Delivery) => {
      const id = m.body;
      const read = await readOrder(ctx.db, name, id);
      if (!read) throw new LabError(`check for unknown order ${id}`);
      ctx.log.emit('consumer', {
        messageId: m.messageId,
        order: id,
        read: read.status,
        redelivered: m.redelivered,
        status: 'read',
      });
      const duringCheck = id === ORDERS.paidDuringCheck;
      if (duringCheck)
        await ctx.checkpoint('after-read', {
          order: id,
          read: read.status,
          note: 'the payment lands now, before the conditional UPDATE',
        });
      const close = () => closeIfDue(ctx.db, name, id, 'check', steps.guards);
      const closed = duringCheck ? await steps.payAroundClose(() => payNow(ctx, name, id), close) : await close();
      await recordCheck(ctx.db, name, id, m.redelivered, read, closed);
      await settleTask(ctx.db, name, id, 'check');
      m.ack();
      ctx.log.emit('consumer', { messageId: m.messageId, order: id, updatedRows: closed.rows, status: 'acked' });
      if (++received === CHECK_DELIVERIES) done.resolve();
    },
    { prefetch: 1 },
  );
  return { done: Promise.race([done.promise, consumer.failure]), cancel: () => consumer.cancel() };
}

async function payNow(ctx: LabContext, name: OrderNames, id: string) {
  const rows = await pay(ctx.db, name, id);
  ctx.log.emit('payment', { order: id, updatedRows: rows, status: rows ? 'paid' : 'refused' });
}

/** the sweeper: wait until every pending task is due, then close what the task table shows as due */
async function sweep(ctx: LabContext, name: OrderNames, guards: Guards): Promise<string[]> {
  const wait = await msUntilLastDue(ctx.db, name);
  if (wait > 0) ctx.progress(`sweeper waits ${wait} ms for the last pending task to fall due`);
  await ctx.sleep(wait + 20);
  const due = await dueTasks(ctx.db, name);
  for (const id of due) {
    const closed = await closeIfDue(ctx.db, name, id, 'sweeper', guards);
    await settleTask(ctx.db, name, id, 'sweeper');
    ctx.log.emit('sweeper', { order: id, updatedRows: closed.rows, status: 'swept' });
  }
  return due;
}
