/**
 * poison: a message no consumer can process (its body is not JSON) first, then good ones: the poison
 * must reach the dead-letter queue within --poison-deliveries deliveries, and the good ones must not
 * wait behind it.
 */
import type { Group } from './group.js';

export const poison: Group = {
  name: 'poison',
  title: 'a message whose body is not JSON, before good ones: parked in the DLQ, the queue not blocked',
  exposes: ['poison-not-parked', 'unexpected'],
  async run(s) {
    const [pill] = await s.publishNew(1, 'poison');
    await s.publishNew(3);
    s.facts.poison = pill;
    s.facts.end = await s.settle();
    s.facts.poisonDeliveries = s.proxy.deliveredTimes.get(pill!) ?? 0;
  },
};
