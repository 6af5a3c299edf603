/** duplicate: one message id published twice (a publisher's retry after a lost confirm): one effect, not two. */
import type { Group } from './group.js';

export const duplicate: Group = {
  name: 'duplicate',
  title: 'the same message id published twice, as a publisher that retried would',
  exposes: ['duplicated'],
  async run(s) {
    const ids = await s.publishNew(3);
    const twice = ids[1]!;
    await s.publish(twice);
    s.facts.publishedTwice = twice;
    s.facts.end = await s.settle();
  },
};
