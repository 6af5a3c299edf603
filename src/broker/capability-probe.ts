/**
 * Measures, on the broker at hand, the capabilities a lab's verdict reads about the delivery count:
 * one message through two throwaway quorum queues (a source dead-lettering into a second one), in
 * about ten round trips:
 *   1. get, nack(requeue=true), get again: x-delivery-count present and above 0 → nack counts;
 *   2. nack again, get on a second channel, close that channel, get again: the count rose over what
 *      the second channel saw → consumer loss counts;
 *   3. reject(requeue=false) into the second queue, get there: x-delivery-count above 0 → the
 *      dead-lettered copy carries the count (3.10.8 sends 0 there: measured).
 * The counter x-delivery-limit compares follows: nack counts → every return (3.x) or the acquired
 * count (4.0–4.2, the version tells which); nack not counted → the delivery count (4.3).
 * Both queues expire on their own (x-expires) should the probe be cut off.
 */
import type { Channel, GetMessage } from 'amqplib';
import { randomBytes } from 'node:crypto';
import { closeChannel, type Broker } from './broker.js';
import {
  atLeast,
  needsFeatureFlags,
  withFeatureFlags,
  withMeasured,
  type Capabilities,
  type DeliveryLimitCounter,
} from './capabilities.js';
import type { Names } from '../core/names.js';

export interface ProbeSeen {
  /** x-delivery-count after one nack(requeue=true) (null: absent) */
  afterNack: number | null;
  /** x-delivery-count as a second channel got it (after one more nack(requeue=true)) */
  beforeLoss: number | null;
  /** x-delivery-count after that channel closed with the message unacked */
  afterLoss: number | null;
  /** x-delivery-count of the dead-lettered copy (null: absent) */
  deadLettered: number | null;
}

/** the probe's observations → capability values (pure, for tests) */
export function fromSeen(version: string, seen: ProbeSeen) {
  const nack = (seen.afterNack ?? 0) > 0;
  const counter: DeliveryLimitCounter = nack
    ? atLeast(version, 4, 0)
      ? 'acquired-count'
      : 'every-return'
    : 'delivery-count';
  return {
    nackRequeueCountsTowardLimit: nack,
    consumerLossCountsTowardLimit: (seen.afterLoss ?? 0) > (seen.beforeLoss ?? 0),
    deliveryLimitCounter: counter,
    deadLetteredCopyCarriesDeliveryCount: (seen.deadLettered ?? 0) > 0,
  };
}

/**
 * the derived capabilities with the probe's measurements laid over them, and on 3.13.3–3.13.x the
 * ones a feature flag decides (`featureFlags`: the broker's enabled flags, read only there); derived
 * alone where the probe or the reading fails
 */
export async function measureCapabilities(
  broker: Broker,
  names: Names,
  versionDerived: Capabilities,
  featureFlags?: () => Promise<string[]>,
  timeoutMs = 5000,
): Promise<Capabilities> {
  const derived =
    featureFlags && needsFeatureFlags(versionDerived.version)
      ? await featureFlags().then(
          (enabled) => withFeatureFlags(versionDerived, enabled),
          () => versionDerived,
        )
      : versionDerived;
  if (!derived.quorumMessageTtl) return derived; // no quorum queues worth probing (before 3.10)
  const ch = await broker.connection.createChannel();
  ch.on('error', () => {});
  const tag = randomBytes(4).toString('hex');
  const source = names.q(`mqlab.capability-probe.${tag}`);
  const target = `${source}.dead`;
  try {
    const seen = await withTimeout(probe(broker, ch, source, target), timeoutMs);
    return withMeasured(derived, fromSeen(derived.version, seen));
  } catch {
    return derived;
  } finally {
    await ch.deleteQueue(source).catch(() => {});
    await ch.deleteQueue(target).catch(() => {});
    await closeChannel(ch);
  }
}

async function probe(broker: Broker, ch: Channel, source: string, target: string): Promise<ProbeSeen> {
  const quorum = { 'x-queue-type': 'quorum', 'x-expires': 60_000 };
  await ch.assertQueue(target, { durable: true, arguments: quorum });
  await ch.assertQueue(source, {
    durable: true,
    arguments: { ...quorum, 'x-delivery-limit': 10, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': target },
  });
  await broker.sendConfirmed(source, 'capability probe');
  (await getOne(ch, source)).nack(false, true);
  const second = await getOne(ch, source);
  const afterNack = count(second.msg);
  second.nack(false, true);
  const other = await broker.connection.createChannel();
  other.on('error', () => {});
  const beforeLoss = count((await getOne(other, source)).msg);
  await closeChannel(other); // its unacked message comes back as a consumer loss
  const third = await getOne(ch, source);
  const afterLoss = count(third.msg);
  third.reject(false);
  const copy = await getOne(ch, target);
  copy.ack();
  return { afterNack, beforeLoss, afterLoss, deadLettered: count(copy.msg) };
}

interface Got {
  msg: GetMessage;
  nack(allUpTo: boolean, requeue: boolean): void;
  reject(requeue: boolean): void;
  ack(): void;
}

/** basic.get until a message comes (a return after a nack or a closed channel lands asynchronously) */
async function getOne(ch: Channel, queue: string, waitMs = 5000): Promise<Got> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`no message in ${queue} within ${waitMs} ms`);
    const msg = await ch.get(queue, { noAck: false });
    if (msg)
      return { msg, nack: (a, r) => ch.nack(msg, a, r), reject: (r) => ch.reject(msg, r), ack: () => ch.ack(msg) };
    await new Promise((r) => setTimeout(r, 20));
  }
}

const count = (msg: GetMessage): number | null => {
  const v: unknown = msg.properties.headers?.['x-delivery-count'];
  return v === undefined || v === null ? null : Number(v);
};

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error('probe timed out')), ms))),
  ]).finally(() => clearTimeout(timer));
}
