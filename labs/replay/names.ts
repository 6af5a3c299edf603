/**
 * The replay lab's names, topology and schema.
 *
 * retry_replay_audit: repair-42 APPROVED ('verified order amount=10')
 * me12.retry.replay.dead ── amount=invalid (id repair-42) ─▶ replay tool (push consumer)
 *     1. reads the APPROVED row for the message id, repairs the payload from it (amount=10)
 *     2. publishes amount=10 with the same message id to me12.retry.replay.work, waits for the confirm
 *     3. only then acks the dead original
 * me12.retry.replay.work ── receiver (push consumer): id and payload checked →
 *     UPDATE audit SET state='VERIFIED' WHERE state='APPROVED' → ack
 */
import type { Names, Topology } from '../../src/kit/index.js';

export const EVENT_ID = 'repair-42';

export const names = (n: Names) => ({
  dead: n.q('me12.retry.replay.dead'),
  work: n.q('me12.retry.replay.work'),
  audit: n.t('retry_replay_audit'),
});

export const topology = (n: Names): Topology => ({ queues: [{ name: names(n).dead }, { name: names(n).work }] });
export const schema = (n: Names) =>
  `CREATE TABLE IF NOT EXISTS ${names(n).audit}(event_id text PRIMARY KEY, reason text NOT NULL, state text NOT NULL)`;
export const reset = (n: Names) => `DELETE FROM ${names(n).audit} WHERE event_id = '${EVENT_ID}'`;
