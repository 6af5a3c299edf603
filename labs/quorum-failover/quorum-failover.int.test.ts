/**
 * On the normal suites' single node: `mqlab quorum-failover` says in one line that it needs a
 * cluster and exits 2 (in `mqlab all` it is SKIP with the same reason: test/all.int.test.ts).
 * The lab itself runs in the cluster suite (quorum-failover.cluster.int.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { mqlab, useNamespace } from '../../test/helpers.js';

useNamespace('t_qf');

describe('quorum-failover without a cluster', () => {
  it('exits 2 with one line naming `mqlab up --nodes 3`, before touching the broker', async () => {
    const r = await mqlab(['quorum-failover']);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(
      /^mqlab: quorum-failover needs a cluster of 3 RabbitMQ nodes: run `mqlab up --nodes 3` \(/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});
