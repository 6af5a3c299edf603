/** Every check of `mqlab audit`, in the order the reports list them. */
import type { Check } from './finding.js';
import {
  atLeastOnceUnsafe,
  deadLetterExchangeMissing,
  deadLetterLoop,
  deadLetterUnroutable,
  retryFanout,
  retryLoopUnbounded,
} from './checks-routes.js';
import { policyNotApplied, policyPatternInvalid } from './checks-policies.js';
import { classicMirroring, queueArgumentsRefused, queueModeIgnored, transientQueues } from './checks-upgrade.js';
import { bindingToUndeclared, definitionsInvalid, definitionsWithoutVhost, queueTypeIgnored } from './checks-import.js';
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
  retryFanout,
  policyPatternInvalid,
  policyNotApplied,
  classicMirroring,
  queueArgumentsRefused,
  transientQueues,
  queueModeIgnored,
  bindingToUndeclared,
  definitionsWithoutVhost,
  definitionsInvalid,
  queueTypeIgnored,
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
