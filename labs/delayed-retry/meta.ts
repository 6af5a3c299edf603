/** The delayed-retry lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';
import { HOLD_MS } from './delays.js';

export const meta = defineLab({
  name: 'delayed-retry',
  title: "RabbitMQ 4.3's native delayed retry on a quorum queue, next to a TTL ladder",
  summary:
    'RabbitMQ 4.3 native delayed retry (`x-delayed-retry-*`): reject grows the delay, nack does not (it stays at `min` for a message that never failed), the message stays counted; next to a TTL ladder (SKIP before 4.3; policy keys from 4.3.1)',
  seed: '000',
  proves:
    'On a quorum queue with x-delayed-retry-type=all, min 200 ms, max 600 ms: a message rejected with requeue comes back ' +
    'after min(min × delivery-count, max) = 200, 400, 600, 600 ms and its x-delivery-count grows; one nacked with requeue ' +
    'comes back after 200 ms every time without an x-delivery-count (4.3 sends only x-acquired-count then). Gaps come from delivery timestamps and are never early. ' +
    'While it waits, the message stays in the queue (management statistics: messages=1, ready=0, unacked=0) and ' +
    'x-max-length=1 still counts it (of two more publishes the second is refused). A TTL ladder doing the same schedule needs 4 queues, ' +
    'an exchange and 3 bindings against 1 queue; both are timed side by side. The rules, one queue each: type disabled delays ' +
    'nothing, all both returns, failed the reject, returned the nack; without min a queue argument delays nothing and a policy ' +
    "is refused (so is a policy whose max is below its min); max defaults to min; a policy's type wins over the argument and " +
    'the lower min/max of the two wins; with x-delivery-limit -1 the nack is still delayed (measured; the source has a skip ' +
    'that 0.9.1 returns do not take). Needs RabbitMQ 4.3: older brokers SKIP; the policy rules need 4.3.1 (4.3.0: SKIP).',
  // the reject schedule (200+400+600+600) runs beside the 3 s hold; then the rules' queues (two 1 s waits at most)
  floorMs: HOLD_MS + 2 * 1000, // 2 × RULE_MIN_MS (rules.ts, not imported here: it loads the broker client)
  // no database in this process: the run opens no connection to PostgreSQL
  database: false,
  options: {},
  checks: [
    'rejectEarlyGaps',
    'rejectMaxLateMs',
    'rejectDeliveryCounts',
    'nackEarlyGaps',
    'nackMaxLateMs',
    'nackDeliveryCounts',
    'heldInQueue',
    'maxLengthCountsHeld',
    'heldGapMs',
    'nativeTopology',
    'ladderTopology',
    'ladderEarlyGaps',
    'queueDepthAfter',
    'typeDelays',
    'minRequired',
    'policyMaxBelowMin',
    'maxDefaultsToMin',
    'policyTypeWins',
    'lowerMinWins',
    'unlimitedLimitDelays',
  ],
  // the broken variants (MQLAB_FAULT=delayed-retry:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'no-delayed-retry': {
      breaks: 'the queues are declared without x-delayed-retry-*: returns come back at once, nothing is held',
      fails: ['heldGapMs', 'heldInQueue', 'nackEarlyGaps', 'rejectEarlyGaps'],
    },
    'nack-for-reject': {
      breaks: 'nack where the lab means reject: the delivery count and the delay do not grow',
      fails: ['rejectDeliveryCounts', 'rejectEarlyGaps'],
    },
    'reject-for-nack': {
      breaks: 'reject where the lab means nack: the delivery count and the delay grow',
      fails: ['nackDeliveryCounts'],
    },
    'slow-consumer': {
      breaks: 'the consumer works longer than the maximum delay before returning',
      fails: ['nackMaxLateMs', 'rejectMaxLateMs'],
    },
    'no-max-length': {
      breaks: 'the held queue without x-max-length: the third publish is accepted too',
      fails: ['maxLengthCountsHeld'],
    },
    'native-bound': {
      breaks: "the native reject queue is also bound to an exchange, as a ladder's queue would be",
      fails: ['nativeTopology'],
    },
    'work-bound-to-retry': {
      breaks: "the ladder's work queue is bound to its retry exchange: the first retry comes back at once",
      fails: ['ladderTopology', 'ladderEarlyGaps', 'queueDepthAfter'],
    },
    'failed-as-all': {
      breaks: "the failed type's queue is declared with type all: a nack is delayed too",
      fails: ['typeDelays'],
    },
    'min-given': { breaks: 'the no-min queue and the policy without min both get a min', fails: ['minRequired'] },
    'max-not-below-min': {
      breaks: 'the policy whose max is below its min gets max = min: accepted',
      fails: ['policyMaxBelowMin'],
    },
    'max-given': {
      breaks: 'the max-default queue is declared with max = 3 x min: the waits grow',
      fails: ['maxDefaultsToMin'],
    },
    'no-policies': { breaks: 'the two precedence policies are not applied', fails: ['policyTypeWins', 'lowerMinWins'] },
    'unlimited-as-failed': {
      breaks: 'the x-delivery-limit -1 queue is declared with type failed: its nack is not delayed',
      fails: ['unlimitedLimitDelays'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    held: 'm-held was rejected with requeue on the native held queue (min = max = 3000 ms) and its consumer cancelled; the queue held it (messages 1, ready 0, unacked 0) and counted it against x-max-length 1 (second publish accepted, third refused); it comes back when its delay ends, whatever the pause',
  },
});

/** a broken variant of delayed-retry */
export type Fault = FaultName<typeof meta.faults>;
