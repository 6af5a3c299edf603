/**
 * What the broker line decides (src/broker/capabilities.ts, quorumRegistrationDelayMs): a node killed
 * before a re-declared quorum queue's replica is registered on disk. RabbitMQ 3.10 (ra 2.2 writes the
 * registration 3 s late) brings the node back without the replica; 4.3 registers it at once. The lab
 * waits on 3.10 only; without the wait (MQLAB_FAULT no-registration-wait) 3.10 fails and 4.3 passes.
 * Runs on both cluster lines (the generic broken variants, quorum-failover.faults.cluster.int.test.ts,
 * run on the first line only).
 */
import { describe, expect, it } from 'vitest';
import { mqlab, services, useNamespace } from '../../test/helpers.js';
import { expectFaultsFail } from '../../test/faults.js';
import { capabilities } from '../../src/broker/capabilities.js';
import { meta } from './meta.js';

useNamespace('t_qfr');
const lab = 'quorum-failover';
const namespace = 't_qfr';
const short = ['--messages', '600', '--kill-after', '200'];

describe("quorum-failover: the kill and the replica's registration", () => {
  it('the kill before the re-declared replica is on disk: on RabbitMQ 3.10 the node restarts without it (log: could not be restarted {error,enoent}); on 4.3 the same run passes', async () => {
    const s = await services();
    const version = s.broker.version;
    await s.close();
    // a run first: the node the lab kills has this namespace's queue registered on disk, so the next declare replaces a registration
    const first = await mqlab([lab, '--namespace', namespace, ...short]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    if (capabilities(version).quorumRegistrationDelayMs) {
      await expectFaultsFail({
        meta,
        namespace,
        faults: ['no-registration-wait'],
        args: [...short, '--catch-up-timeout', '5s'],
        only: true,
        alsoMayFail: ['failoverMs'],
      });
      return;
    }
    // 4.3 has the replica on disk at once: without the wait the killed node still comes back with it
    const r = await mqlab([lab, '--namespace', namespace, ...short], { MQLAB_FAULT: `${lab}:no-registration-wait` });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.lines).toContain('PASS killedReplicaCaughtUp: true');
  });
});
