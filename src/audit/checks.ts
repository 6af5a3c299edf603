/** Every check of `mqlab audit`, in the order the reports list them. */
import type { Check } from './finding.js';
import {
  atLeastOnceUnsafe,
  deadLetterExchangeMissing,
  deadLetterLoop,
  deadLetterUnroutable,
  retryLoopUnbounded,
} from './checks-routes.js';
import {
  autoAck,
  classicOnCluster,
  delayQueueMessageTtl,
  fewReplicas,
  growingDlq,
  noConfirms,
  quorumDefaultLimit,
  requeueStorm,
  unackedPile,
  unlimitedPrefetch,
} from './checks-live.js';

export const CHECKS: readonly Check[] = [
  deadLetterLoop,
  deadLetterExchangeMissing,
  deadLetterUnroutable,
  atLeastOnceUnsafe,
  quorumDefaultLimit,
  retryLoopUnbounded,
  delayQueueMessageTtl,
  growingDlq,
  requeueStorm,
  unackedPile,
  autoAck,
  unlimitedPrefetch,
  noConfirms,
  fewReplicas,
  classicOnCluster,
];
