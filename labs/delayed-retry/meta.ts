/** The delayed-retry lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
import { HOLD_MS } from './delays.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'delayed-retry',
  title: "RabbitMQ 4.3's native delayed retry on a quorum queue, next to a TTL ladder",
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
    'that 0.9.1 returns do not take). Needs RabbitMQ 4.3: older brokers SKIP.',
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
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
