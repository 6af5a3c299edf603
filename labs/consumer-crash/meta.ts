/** The consumer-crash lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';
import { options } from './options.js';

export const meta = defineLab({
  name: 'consumer-crash',
  title: 'a consumer crash between business commit and ack, caught by the idempotency table',
  summary: 'a consumer killed (SIGKILL) between commit and ack; the redelivery is caught by the idempotency table',
  seed: '004',
  proves:
    'A consumer process that commits its business row and is SIGKILLed before its ack (exit 137) sends no ack: ' +
    'the broker redelivers that message to the next consumer process with redelivered=true, the processed_messages ' +
    'unique key turns it into duplicate_skipped, and after 4 deliveries of 3 unique messages there are exactly ' +
    '3 business rows and an empty queue.',
  floorMs: 0,
  options,
  // the replay gates of the consumer processes (src/kit/gates/replay-gate.ts), each a checkpoint of this process, then the lab's own
  checks: [
    'crashExitCode',
    'crashAfterBusinessCommit',
    'receivedTotal',
    'redeliveredCount',
    'duplicatesObserved',
    'uniqueMessageIds',
    'business_rows',
    'queueDepthAfter',
    'consumer-run2.exitCode',
  ],
  // the broken variants (MQLAB_FAULT=consumer-crash:<name>): what each breaks, and the checks that must print FAIL
  faults: {
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
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    'after-delivery':
      'a consumer process has received a message and logged received; it has written nothing for it yet',
    'before-ack':
      "the consumer's transaction for that message has committed (or skipped a duplicate) and the ack is not sent yet; in run 1 the process kills itself right after",
    'after-crash':
      'consumer-run1 committed one order and died by SIGKILL before its ack; the broker made every unacked message ready again, and consumer-run2 has not started',
  },
});

/** a broken variant of consumer-crash */
export type Fault = FaultName<typeof meta.faults>;
