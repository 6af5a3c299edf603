/**
 * Every lab, in the order `mqlab all` runs them: its name, its title and how to load its meta. A
 * new lab is one folder under labs/ plus one line here. Nothing loads a lab's meta until a command
 * needs it: `mqlab retry` loads retry's alone, `mqlab --help` and `mqlab list` none (the titles are
 * here; labs/registry.test.ts checks they are the metas' own).
 */
import type { Catalogue, LabMeta } from '../src/kit/index.js';

const lab = (name: string, title: string, load: () => Promise<{ meta: LabMeta }>) => ({
  name,
  title,
  load: () => load().then((m) => m.meta),
});

export const catalogue: Catalogue = [
  lab('retry', 'limited delayed retry and poison-message isolation', () => import('./retry/meta.js')),
  lab(
    'hold',
    'at-least-once dead lettering holds a letter while its target is unbound',
    () => import('./hold/meta.js'),
  ),
  lab(
    'at-most-once-drop',
    'the default dead-letter strategy drops a letter whose target is unbound',
    () => import('./at-most-once-drop/meta.js'),
  ),
  lab('replay', 'controlled replay of a dead message with an audit trail', () => import('./replay/meta.js')),
  lab('compensate', 'idempotent conditional compensation in one transaction', () => import('./compensate/meta.js')),
  lab(
    'consumer-crash',
    'a consumer crash between business commit and ack, caught by the idempotency table',
    () => import('./consumer-crash/meta.js'),
  ),
  lab(
    'crash-loop',
    'a poison pill that kills its consumer on every delivery, ended by the delivery limit',
    () => import('./crash-loop/meta.js'),
  ),
  lab(
    'publish-confirm',
    'what a publisher confirm says and does not say; publish retry vs consume retry',
    () => import('./publish-confirm/meta.js'),
  ),
  lab(
    'auto-ack-loss',
    '"auto-ack with a durable queue is safe" is false: a consumer crash loses what was delivered',
    () => import('./auto-ack-loss/meta.js'),
  ),
  lab(
    'outbox',
    'transactional outbox: business success must be published, a rollback never is',
    () => import('./outbox/meta.js'),
  ),
  lab(
    'retry-dlq',
    "retry counted by the broker's x-death; a poison message moved to a DLQ",
    () => import('./retry-dlq/meta.js'),
  ),
  lab(
    'retry-ladder',
    'tiered TTL delay queues, exponential backoff and a deadline that wins over the count',
    () => import('./retry-ladder/meta.js'),
  ),
  lab(
    'dead-letter-reasons',
    'every way a message dies: expired, maxlen, rejected, delivery_limit',
    () => import('./dead-letter-reasons/meta.js'),
  ),
  lab(
    'requeue-storm',
    'why nack(requeue=true) is not a retry: the requeue storm next to a TTL delay queue',
    () => import('./requeue-storm/meta.js'),
  ),
  lab(
    'archive',
    'archiving dead letters into a history table: idempotent, nothing lost, with retention',
    () => import('./archive/meta.js'),
  ),
  lab('ordering', 'version checks beat ordering under delayed retry', () => import('./ordering/meta.js')),
  lab(
    'dlx-loop',
    'a dead-letter route that leads back to its own queue, and the fix',
    () => import('./dlx-loop/meta.js'),
  ),
  lab(
    'retry-loop-limit',
    'a TTL retry loop wears down the delivery limit (4.0+), and the dead-letter cycle rule',
    () => import('./retry-loop-limit/meta.js'),
  ),
  lab(
    'order-timeout',
    'a delayed check closes only an unpaid order; a sweeper finds the lost check',
    () => import('./order-timeout/meta.js'),
  ),
  lab(
    'delayed-retry',
    "RabbitMQ 4.3's native delayed retry on a quorum queue, next to a TTL ladder",
    () => import('./delayed-retry/meta.js'),
  ),
  lab(
    'quorum-failover',
    "a quorum queue's leader node SIGKILLed mid-stream: no confirmed message lost, unconfirmed ones resent",
    () => import('./quorum-failover/meta.js'),
  ),
  lab(
    'partition',
    "a quorum queue's leader node cut off from the other two mid-stream, then healed: no confirmed message lost",
    () => import('./partition/meta.js'),
  ),
  lab(
    'node-pause',
    "a quorum queue's leader node frozen (SIGSTOP) mid-stream, then resumed: no confirmed message lost",
    () => import('./node-pause/meta.js'),
  ),
  lab(
    'db-outage',
    'PostgreSQL stopped while a consumer holds a delivery between receive and commit',
    () => import('./db-outage/meta.js'),
  ),
  lab(
    'broker-restart',
    'the RabbitMQ node restarted under a consumer holding unacked deliveries and a producer with confirms',
    () => import('./broker-restart/meta.js'),
  ),
];
