/**
 * Every lab, in the order `mqlab all` runs them. A new lab is one folder under labs/ plus one
 * entry here. Entries are metadata only; the lab's code loads when the lab runs.
 */
import type { LabEntry } from '../src/lab.js';
import { PREFETCH, WINDOW_MS, parsePrefetch, parseWindowMs } from './requeue-storm/options.js';
import { GATE_MS, parseGateMs } from '../src/gate-ms.js';
import { ladderFloorMs } from './retry-ladder/backoff.js';
import { DEFAULTS as LADDER_DEFAULTS, ladderFlags } from './retry-ladder/options.js';
import { parseDuration } from '../src/duration.js';
import { parseLimit, parseStatus } from './archive/options.js';
import { DEFAULT_RECOVER_TIMEOUT_S, parseRecoverTimeout } from './hold/options.js';
import { meta as orderTimeout } from './order-timeout/meta.js';
import { meta as delayedRetry } from './delayed-retry/meta.js';

export const registry: LabEntry[] = [
  {
    name: 'retry',
    title: 'limited delayed retry and poison-message isolation',
    proves:
      'A transient failure is retried through a 500 ms TTL delay queue with an attempt header (1, 2, 3), ' +
      'the retry copy is confirmed before the original is acked, the poison message is rejected without ' +
      'requeue into the DLQ with an x-death entry of reason rejected, and exactly two business rows exist.',
    floorMs: 1000,
    load: () => import('./retry/lab.js'),
  },
  {
    name: 'hold',
    title: 'at-least-once dead lettering holds a letter while its target is unbound',
    proves:
      'With the policy me12-hold (dead-letter-strategy at-least-once, overflow reject-publish) on the source, a ' +
      'message rejected without requeue while the target queue is unbound stays held in the source (messages=1, ' +
      'ready=0, unacked=0) and the target stays empty; once the binding is restored the broker\'s own dead-letter ' +
      'worker delivers the same message id and body, with an x-death entry for the source, and the application ' +
      'publishes nothing again. The policy is cleared only when the source holds no letter.',
    options: [
      {
        flags: '--recover-timeout <seconds>',
        description: "how long to wait after the rebind for the broker's dead-letter worker (180 s timer on an untuned broker)",
        default: DEFAULT_RECOVER_TIMEOUT_S,
        parse: parseRecoverTimeout,
      },
    ],
    floorMs: 3000,
    load: () => import('./hold/lab.js'),
  },
  {
    name: 'replay',
    title: 'controlled replay of a dead message with an audit trail',
    proves:
      'A quarantined message (amount=invalid) is replayed only with an APPROVED audit row, repaired from that ' +
      'approval to amount=10 under the same message id, published and confirmed before the dead original is ' +
      'acked; the receiver checks id and payload and moves the audit row APPROVED → VERIFIED; both quorum ' +
      'queues end empty.',
    floorMs: 0,
    load: () => import('./replay/lab.js'),
  },
  {
    name: 'compensate',
    title: 'idempotent conditional compensation in one transaction',
    proves:
      'Releasing a reservation twice adds stock once: each attempt is one transaction whose first statement ' +
      "is UPDATE … SET state='RELEASED' WHERE state='RESERVED', and stock grows only when that changed a row " +
      '(9 → 10). The same holds when the two attempts race on two connections: the loser waits on the ' +
      "winner's row lock, re-reads the row after the commit and changes nothing; a check-then-act version " +
      '(SELECT, then an unconditional UPDATE) racing the same way releases twice (11).',
    floorMs: 0,
    load: () => import('./compensate/lab.js'),
  },
  {
    name: 'consumer-crash',
    title: 'a consumer crash between business commit and ack, caught by the idempotency table',
    proves:
      'A consumer process that commits its business row and is SIGKILLed before its ack (exit 137) sends no ack: ' +
      'the broker redelivers that message to the next consumer process with redelivered=true, the processed_messages ' +
      'unique key turns it into duplicate_skipped, and after 4 deliveries of 3 unique messages there are exactly ' +
      '3 business rows and an empty queue.',
    options: [
      { flags: '--gate-ms <ms>', description: "hold each replay-gate checkpoint in the consumer processes this long (the seed's demo holds about 1000)", default: GATE_MS.default, parse: parseGateMs },
    ],
    floorMs: 0,
    load: () => import('./consumer-crash/lab.js'),
  },
  {
    name: 'retry-dlq',
    title: "retry counted by the broker's x-death; a poison message moved to a DLQ",
    proves:
      'Three confirmed orders; a consumer in its own process commits the two healthy ones to PostgreSQL ' +
      '(idempotent by message id) and rejects the poison one without requeue. The quorum work queue dead-letters ' +
      'it to a retry queue whose 1000 ms TTL dead-letters it back; the attempt number is 1 + the x-death count ' +
      'of (work queue, rejected), so it reads 1, 2, 3 on 3.10 and 4.x alike. At attempt 3 the consumer moves it ' +
      'to the DLQ with a confirm, then acks: work and retry queues end empty, the DLQ holds one message.',
    options: [
      { flags: '--gate-ms <ms>', description: "hold each replay-gate checkpoint in the consumer process this long (the seed's demo holds about 1000)", default: GATE_MS.default, parse: parseGateMs },
    ],
    floorMs: 2000,
    load: () => import('./retry-dlq/lab.js'),
  },
  {
    name: 'retry-ladder',
    title: 'tiered TTL delay queues, exponential backoff and a deadline that wins over the count',
    proves:
      'Retries climb a ladder of delay queues, one fixed TTL each (200/400/800 ms by default: ' +
      'min(max-delay, d × 2^(n-1))), with the attempt in the application’s own header; observed gaps between ' +
      'deliveries are at least each tier’s TTL and grow tier by tier. A message that recovers on attempt 3 ' +
      'makes one business row; one that never recovers makes exactly max-attempts attempts and is rejected ' +
      'into the DLQ; one whose deadline cannot cover the next wait plus a call is parked, reason in a header, ' +
      'after fewer attempts. Every message ends in exactly one place: business table, DLQ or parking queue.',
    options: ladderFlags,
    floorMs: ladderFloorMs(LADDER_DEFAULTS),
    load: () => import('./retry-ladder/lab.js'),
  },
  {
    name: 'dead-letter-reasons',
    title: 'every way a message dies: expired, maxlen, rejected, delivery_limit',
    proves:
      'One message per path dies into its own DLQ: queue TTL and per-message expiration give reason expired ' +
      '(the dead letter loses its expiration property, kept as x-death original-expiration), x-max-length with ' +
      'drop-head gives maxlen for the oldest message, reject(requeue=false) gives rejected, repeated ' +
      'reject(requeue=true) past x-delivery-limit gives delivery_limit; each x-death entry (reason, queue, count) ' +
      'and the x-first-death-* (and, from 3.13, x-last-death-*) headers match the broker version, and a message ' +
      'that dies twice on the same (queue, reason) shows count 1 then 2.',
    floorMs: 150,
    load: () => import('./dead-letter-reasons/lab.js'),
  },
  {
    name: 'requeue-storm',
    title: 'why nack(requeue=true) is not a retry: the requeue storm next to a TTL delay queue',
    proves:
      'For the same window, one message that always fails and a steady stream of healthy ones: ' +
      'nack(requeue=true) hands the failing message back at once, so it is redelivered at least 20x more often ' +
      'per second than through reject → 500 ms TTL delay queue → back, and burns the consumer\'s CPU; ' +
      'every healthy message is still processed in both modes, and the queues are empty afterwards.',
    options: [
      { flags: '--window-ms <ms>', description: `how long each mode runs (${WINDOW_MS.min}–${WINDOW_MS.max})`, default: WINDOW_MS.default, parse: parseWindowMs },
      { flags: '--prefetch <n>', description: 'unacked deliveries per consumer (with 1 the storm holds the consumer; try 10)', default: PREFETCH.default, parse: parsePrefetch },
    ],
    floorMs: 2 * WINDOW_MS.default,
    load: () => import('./requeue-storm/lab.js'),
  },
  {
    name: 'archive',
    title: 'archiving dead letters into a history table: idempotent, nothing lost, with retention',
    proves:
      'Orders rejected or expired by the broker reach the DLQ with real x-death headers; a separate archiver ' +
      'writes each into dead_letter_archive (business id, payload, original route, first and last death, ' +
      'attempts, status, archived_at) before acking; killed after a commit and before its ack, the letter comes ' +
      'back and ON CONFLICT DO NOTHING keeps one row; a letter without a business id is refused by the table, ' +
      'recorded in the failure table and acked; status only moves ARCHIVED → IN_PROGRESS → FIXED; ' +
      'purge --older-than 30d deletes only the old row.',
    floorMs: 200,
    load: () => import('./archive/lab.js'),
    tools: [
      {
        name: 'purge',
        description: 'retention: delete the archived rows older than a duration (e.g. --older-than 30d)',
        options: [{ flags: '--older-than <duration>', description: 'age of the rows to delete: 30d, 12h, 90m, 45s', parse: parseDuration, required: true }],
        load: async () => (await import('./archive/tools.js')).purge,
      },
      {
        name: 'list',
        description: 'show the archived dead letters, newest first',
        options: [
          { flags: '--status <status>', description: 'only rows in this state: ARCHIVED, IN_PROGRESS or FIXED', parse: parseStatus },
          { flags: '--limit <n>', description: 'at most this many rows', default: 50, parse: parseLimit },
        ],
        load: async () => (await import('./archive/tools.js')).list,
      },
    ],
  },
  {
    name: 'ordering',
    title: 'version checks beat ordering under delayed retry',
    proves:
      'Version 1 of order-42 fails once and waits 300 ms in a TTL delay queue while version 2 is applied; ' +
      'when version 1 returns, one transaction (a conditional upsert WHERE stored.version < incoming.version) ' +
      'leaves version 2 stored and records version 1 in the stale table with both versions. No event is lost, ' +
      'the queues end empty, and a naive last-write-wins table written from the same deliveries ends at version 1.',
    floorMs: 300,
    load: () => import('./ordering/lab.js'),
  },
  {
    name: 'dlx-loop',
    title: 'a dead-letter route that leads back to its own queue, and the fix',
    proves:
      'A queue whose dead-letter exchange routes back into itself returns a rejected message at once, ' +
      'with the x-death count growing on every hop (1, 2, 3) and no delay; the topology check finds the ' +
      'loop. Splitting the route (a TTL retry queue and an archive queue) delays each retry by the TTL ' +
      'and lets the message leave the loop into the archive after the last attempt.',
    floorMs: 2 * 200,
    load: () => import('./dlx-loop/lab.js'),
  },
  orderTimeout,
  delayedRetry,
];

export function findLab(name: string): LabEntry | undefined {
  return registry.find((l) => l.name === name);
}
