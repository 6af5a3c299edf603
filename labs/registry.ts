/**
 * Every lab, in the order `mqlab all` runs them. A new lab is one folder under labs/ plus one
 * line here. Each meta is cheap to import; the lab's code loads when the lab runs.
 */
import type { Registry } from '../src/lab.js';
import { meta as retry } from './retry/meta.js';
import { meta as hold } from './hold/meta.js';
import { meta as atMostOnceDrop } from './at-most-once-drop/meta.js';
import { meta as replay } from './replay/meta.js';
import { meta as compensate } from './compensate/meta.js';
import { meta as consumerCrash } from './consumer-crash/meta.js';
import { meta as crashLoop } from './crash-loop/meta.js';
import { meta as publishConfirm } from './publish-confirm/meta.js';
import { meta as autoAckLoss } from './auto-ack-loss/meta.js';
import { meta as outbox } from './outbox/meta.js';
import { meta as retryDlq } from './retry-dlq/meta.js';
import { meta as retryLadder } from './retry-ladder/meta.js';
import { meta as deadLetterReasons } from './dead-letter-reasons/meta.js';
import { meta as requeueStorm } from './requeue-storm/meta.js';
import { meta as archive } from './archive/meta.js';
import { meta as ordering } from './ordering/meta.js';
import { meta as dlxLoop } from './dlx-loop/meta.js';
import { meta as retryLoopLimit } from './retry-loop-limit/meta.js';
import { meta as orderTimeout } from './order-timeout/meta.js';
import { meta as delayedRetry } from './delayed-retry/meta.js';
import { meta as quorumFailover } from './quorum-failover/meta.js';
import { meta as dbOutage } from './db-outage/meta.js';
import { meta as brokerRestart } from './broker-restart/meta.js';

export const registry: Registry = [
  retry,
  hold,
  atMostOnceDrop,
  replay,
  compensate,
  consumerCrash,
  crashLoop,
  publishConfirm,
  autoAckLoss,
  outbox,
  retryDlq,
  retryLadder,
  deadLetterReasons,
  requeueStorm,
  archive,
  ordering,
  dlxLoop,
  retryLoopLimit,
  orderTimeout,
  delayedRetry,
  quorumFailover,
  dbOutage,
  brokerRestart,
];

export const findLab = (name: string) => registry.find((l) => l.name === name);
