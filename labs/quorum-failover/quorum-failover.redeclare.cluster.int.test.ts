/**
 * What the broker line decides (src/broker/capabilities.ts, quorumRedeclareStaleReplica): the queue
 * declared again right after its delete, while the deleted replicas still terminate, then the leader's
 * node killed. RabbitMQ 3.10.8 brings that node back without the new replica (its log: could not be
 * restarted {error,enoent}) and it never catches up; 4.3.6 starts the member as new and it catches up.
 * The lab pauses between the delete and the declare; without the pause (MQLAB_FAULT declare-at-once)
 * 3.10 fails and 4.3 passes. Runs on both cluster lines (the generic broken variants,
 * quorum-failover.faults.cluster.int.test.ts, run on the first line only).
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

describe('quorum-failover: the queue declared again at once after its delete', () => {
  it('on RabbitMQ 3.10 the killed node restarts without the new replica and never catches up; on 4.3 the same run passes; the correct lab passes after it on both', async () => {
    const s = await services();
    const version = s.broker.version;
    await s.close();
    // a run first: the node the lab kills has a replica of this namespace's queue, which the next run deletes
    const first = await mqlab([lab, '--namespace', namespace, ...short]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    if (capabilities(version).quorumRedeclareStaleReplica) {
      await expectFaultsFail({
        meta,
        namespace,
        faults: ['declare-at-once'],
        args: [...short, '--catch-up-timeout', '5s'],
        only: true,
        alsoMayFail: ['failoverMs'],
      });
    } else {
      // 4.3: the killed node starts the new member from scratch and catches up
      const r = await mqlab([lab, '--namespace', namespace, ...short], { MQLAB_FAULT: `${lab}:declare-at-once` });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.lines).toContain('PASS killedReplicaCaughtUp: true');
    }
    // the correct lab after it: on 3.10 its second delete clears the entry the failed restart left
    const after = await mqlab([lab, '--namespace', namespace, ...short]);
    expect(after.code, after.stdout + after.stderr).toBe(0);
    expect(after.lines).toContain('PASS killedReplicaCaughtUp: true');
  });
});
