/**
 * TEST ONLY: the consumer-crash lab's broken variants (MQLAB_FAULT=consumer-crash:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'ack-before-commit': {
    breaks: 'the consumer acks before its business commit: the crash loses nothing to redeliver',
    fails: ['crashAfterBusinessCommit', 'duplicatesObserved'],
  },
  'prefetch-all': {
    breaks: 'the consumer takes every message at once (prefetch 10)',
    fails: ['receivedTotal', 'redeliveredCount'],
  },
  'no-dedupe': {
    breaks: 'the consumer does not dedupe: the redelivered order is applied twice',
    fails: ['duplicatesObserved', 'uniqueMessageIds', 'business_rows'],
  },
  'exit-cleanly': { breaks: 'the first consumer exits 0 instead of dying by SIGKILL', fails: ['crashExitCode'] },
  'crash-again': {
    breaks: 'the second consumer run dies too: messages stay in the queue',
    fails: ['queueDepthAfter', 'consumer-run2.exitCode'],
  },
});

/** a broken variant of consumer-crash */
export type Fault = keyof typeof faults;
