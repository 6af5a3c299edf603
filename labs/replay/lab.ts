/**
 * replay — controlled replay of a dead message with an audit trail, as the RetryLab program's
 * `replay` mode does it (docs/labs/replay.md)
 * (the queues, the audit table and the route are drawn in names.ts).
 */
import type { ConfirmChannel } from 'amqplib';
import { closeChannel, type Delivery, check, deferred, labCode } from '../../src/kit/index.js';
import { meta } from './meta.js';
import { removedAfterConfirm, repairPayload, type ReplayStep } from './repair.js';
import { messagesLeft } from './queue-left.js';
import { EVENT_ID, names, reset, schema, topology } from './names.js';

/** the steps of the replay tool a broken variant may replace (variants.ts, TEST ONLY) */
export interface ReplaySteps {
  /** the order: the repaired copy is confirmed first, the original acked last */
  copyThenAck(copy: () => Promise<void>, ackOriginal: () => Promise<void>): Promise<void>;
  /** settle the original in the dead queue */
  ackOriginal(m: Delivery): void;
  /** the copy keeps the original's message id */
  copyId(m: Delivery): string | undefined;
  /** the copy carries the repaired payload */
  copyBody(m: Delivery, repaired: string): string;
  /** the copy is published once */
  publishCopy(publish: () => Promise<unknown>): Promise<void>;
}

const BROKEN = 'amount=invalid';
const APPROVAL = 'verified order amount=10';
const EXPECTED_REPAIR = 'amount=10';

interface Seen {
  id: string | undefined;
  body: string;
}

export const lab = labCode(meta, {
  topology,
  schema,
  reset,

  async run(ctx) {
    const name = names(ctx.names);
    const { broker, db, log } = ctx;
    // the replay tool's steps, as taught
    const steps = ctx.steps<ReplaySteps>({
      copyThenAck: async (copy, ackOriginal) => {
        await copy();
        await ackOriginal();
      },
      ackOriginal: (m) => m.ack(),
      copyId: (m) => m.messageId,
      copyBody: (_m, repaired) => repaired,
      publishCopy: async (publish) => void (await publish()),
    });
    const timeline: ReplayStep[] = [];
    const step = (s: ReplayStep, fields: Record<string, unknown> = {}) => {
      timeline.push(s);
      log.emit('replay', { step: s, ...fields });
    };

    // An operator records the approval: which event, what was verified, in state APPROVED. (It is
    // printed as approved=, what the tool read; the database shows it was APPROVED when the
    // receiver's UPDATE … WHERE state = 'APPROVED' changes it: verified and auditState.)
    await db`INSERT INTO ${db(name.audit)} VALUES (${EVENT_ID}, ${APPROVAL}, 'APPROVED')`;
    // The quarantined message: third attempt, a payload that always fails.
    await broker.sendConfirmed(name.dead, BROKEN, { messageId: EVENT_ID, headers: { attempt: 3 } });
    log.emit('producer', { messageId: EVENT_ID, destination: name.dead, attempt: 3, status: 'confirmed' });

    // The replay tool: approval first, confirmed repaired copy second, ack of the original last.
    // Just before it acks, it reads the work queue's depth from the broker: the confirmed copy must
    // already be there (nobody consumes the work queue until the tool is done).
    const toolCh = await broker.newChannel();
    let original: Seen | null = null;
    let approved = 0;
    let workBeforeAck: number | null = null;
    const toolDone = deferred();
    const tool = await broker.consume(
      name.dead,
      async (m: Delivery) => {
        original = { id: m.messageId, body: m.body };
        const approvals = await db<
          { reason: string }[]
        >`SELECT reason FROM ${db(name.audit)} WHERE event_id = ${m.messageId ?? ''} AND state = 'APPROVED'`;
        approved = approvals.length;
        step('approval-read', { messageId: m.messageId, approved, body: m.body });
        const [approval, ...otherApprovals] = approvals;
        const repaired = approval && otherApprovals.length === 0 ? repairPayload(m.body, approval.reason) : null;
        if (repaired === null) return toolDone.resolve(); // not approved: the original stays held, then returns
        const copy = async () => {
          const props = { messageId: steps.copyId(m), headers: { attempt: 1 } };
          await steps.publishCopy(() => broker.sendConfirmed(name.work, steps.copyBody(m, repaired), props));
          step('repair-confirmed', { messageId: m.messageId, destination: name.work, body: repaired });
          await ctx.checkpoint('repair-confirmed', { messageId: m.messageId, original: 'held-unacked' });
        };
        const ackOriginal = async () => {
          workBeforeAck = await broker.depth(name.work);
          steps.ackOriginal(m);
          step('source-acked', { messageId: m.messageId, queue: name.dead, workDepthBeforeAck: workBeforeAck });
        };
        await steps.copyThenAck(copy, ackOriginal);
        toolDone.resolve();
      },
      { prefetch: 1, channel: toolCh },
    );

    await ctx.within(
      Promise.race([toolDone.promise, tool.failure]),
      5_000,
      `the replay tool to handle ${EVENT_ID} from ${name.dead}`,
    );
    const sourceLeft = await finish(toolCh, tool, name.dead);

    // The receiver takes one copy: checks id and payload, then moves the audit row APPROVED → VERIFIED.
    // It acks only after its consumer is cancelled: with prefetch 1 the broker cannot hand it a second
    // copy while the first is unacked, so anything else on the work queue is still there to be counted.
    const receiverCh = await broker.newChannel();
    let received: Seen | null = null;
    let verified = 0;
    const receiverDone = deferred<Delivery>();
    const receiver = await broker.consume(
      name.work,
      async (m: Delivery) => {
        received = { id: m.messageId, body: m.body };
        step('receiver-got', { messageId: m.messageId, body: m.body });
        if (m.messageId === EVENT_ID && m.body === EXPECTED_REPAIR) {
          const r =
            await db`UPDATE ${db(name.audit)} SET state = 'VERIFIED' WHERE event_id = ${m.messageId} AND state = 'APPROVED'`;
          verified = r.count;
          step('audit-verified', { messageId: m.messageId, rows: r.count });
        }
        receiverDone.resolve(m);
      },
      { prefetch: 1, channel: receiverCh },
    );
    if (timeline.includes('repair-confirmed')) {
      const m = await ctx.within(
        Promise.race([receiverDone.promise, receiver.failure]),
        5_000,
        `the repaired ${EVENT_ID} on ${name.work}`,
      );
      await receiver.cancel();
      m.ack(); // a wrong copy is taken off too, unverified: the run ends and its checks say FAIL
      step('receiver-acked', { messageId: m.messageId });
    }
    const workLeft = await finish(receiverCh, receiver, name.work);

    const [row] = await db<
      { reason: string; state: string }[]
    >`SELECT reason, state FROM ${db(name.audit)} WHERE event_id = ${EVENT_ID}`;
    const o = original as Seen | null;
    const r = received as Seen | null;
    const stableEventId = o?.id === EVENT_ID && r?.id === o.id;
    const repairedPayload = o?.body === BROKEN && r?.body === EXPECTED_REPAIR;
    const sourceRemoved = removedAfterConfirm(workBeforeAck, sourceLeft.count);

    return {
      lines: [
        `replay: approved=${approved} stableEventId=${stableEventId} repairedPayload=${repairedPayload} sourceRemovedAfterConfirm=${sourceRemoved} verified=${verified}`,
      ],
      checks: [
        check('stableEventId', true, stableEventId),
        check('repairedPayload', true, repairedPayload),
        check('sourceRemovedAfterConfirm', true, sourceRemoved),
        check('verified', 1, verified),
        check('auditState', 'VERIFIED', row?.state ?? 'missing'),
        check('queueDepthAfter', 0, sourceLeft.count + workLeft.count),
      ],
      facts: {
        timeline,
        workDepthBeforeAck: workBeforeAck,
        original,
        received,
        audit: row ? { eventId: EVENT_ID, reason: row.reason, state: row.state } : null,
        left: { [name.dead]: sourceLeft.ids, [name.work]: workLeft.ids },
      },
    };
  },
});

/** stop consuming, count what the queue still holds (held deliveries included), close the channel */
async function finish(ch: ConfirmChannel, consumer: { cancel(): Promise<void> }, queue: string) {
  await consumer.cancel();
  const left = await messagesLeft(ch, queue);
  await closeChannel(ch);
  return left;
}
