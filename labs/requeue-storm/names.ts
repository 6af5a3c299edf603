/**
 * The requeue-storm lab's names and topology.
 *
 * (a) requeue   me12.storm.requeue (quorum, x-delivery-limit 1000000)
 *                 failing → nack(requeue=true) → straight back → failing → …   (the storm)
 *                 healthy → ack
 * (b) delayed   me12.storm.work (quorum, DLX '' → me12.storm.delay)
 *                 failing → reject(requeue=false) → me12.storm.delay (TTL 500 ms, DLX '' → me12.storm.work) → …
 *                 healthy → ack
 */
import type { Names, Topology } from '../../src/kit/index.js';

export const DELAY_TTL_MS = 500;
/** healthy messages published per second during a mode's window */
export const HEALTHY_PER_SEC = 50;
/**
 * Far above the lab's cap on redeliveries (50000): 4.0–4.2 count nack(requeue=true) toward a quorum queue's delivery limit
 * (default 20 there), which would end the storm at the 21st return, after 21 deliveries; 3.10 has no default, 4.3 no longer
 * counts nack. One explicit value shows the same storm on all of them.
 */
export const DELIVERY_LIMIT = 1_000_000;

export const names = (n: Names) => ({
  requeue: n.q('me12.storm.requeue'),
  work: n.q('me12.storm.work'),
  delay: n.q('me12.storm.delay'),
});

export function topology(n: Names): Topology {
  const name = names(n);
  return {
    queues: [
      { name: name.requeue, args: { 'x-delivery-limit': DELIVERY_LIMIT } },
      { name: name.work, args: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': name.delay } },
      {
        name: name.delay,
        args: { 'x-message-ttl': DELAY_TTL_MS, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': name.work },
      },
    ],
  };
}
