/**
 * The labs the audit's findings point to (`see: mqlab <lab>`), in this one place. The engine imports
 * no lab: these are names only, and a unit test (test/audit-labs.test.ts) checks, from the test side,
 * that each one is a lab of the registry.
 */
export const SEE = {
  deadLetterLoop: 'dlx-loop',
  lostLetters: 'at-most-once-drop',
  atLeastOnce: 'hold',
  deliveryLimit: 'dead-letter-reasons',
  retryLoop: 'retry-dlq',
  delayQueue: 'retry-ladder',
  growingDlq: 'archive',
  autoAck: 'auto-ack-loss',
  unackedPile: 'auto-ack-loss',
  prefetch: 'consumer-crash',
  confirms: 'publish-confirm',
  requeueStorm: 'requeue-storm',
  replicas: 'quorum-failover',
} as const;
