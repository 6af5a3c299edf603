/**
 * partition on the cluster `mqlab up --nodes 3` started (the cluster suite): three runs in a row pass, and
 * afterwards no nft table of the set, no stopped node and no partition is left; every member runs again.
 * The held delivery comes back counted (3.10, 4.0–4.2: x-delivery-count 1) or not (4.3: none).
 */
import { describe, expect, it } from 'vitest';
import { failedChecks, mqlab, RUN_CAP_MS, useNamespace } from '../../test/helpers.js';
import { clusterNodes, expectNothingLeft } from '../../test/cluster-left.js';

interface LabRun {
  status: string;
  facts: {
    cutOff: string;
    leaderBefore: string;
    majorityResumedMs: number;
    cutOffLeaderPublishes: { confirm: number };
    history: { entries: unknown[] };
    consumerDisconnectedTimeoutMs: number | null;
    heldReturnedMs: number | null;
    heldDeliveryCount: number | null;
  };
}

useNamespace('t_ptc');

const ROUNDS = [1, 2, 3];

describe('partition on a 3-node cluster', () => {
  it(
    'passes three times in a row and leaves no rule and no stopped node behind',
    async () => {
      clusterNodes(); // the cluster suite needs the cluster
      for (const round of ROUNDS) {
        const r = await mqlab(['partition', '--json', '--stream', '2s', '--cut-for', '14s']);
        expect(r.code, `round ${round}: ${r.stderr}\n${failedChecks(r.stdout)}`).toBe(0);
        const lab = (JSON.parse(r.stdout) as { labs: LabRun[] }).labs[0]!;
        expect(lab.status).toBe('passed');
        expect(lab.facts.cutOff).toBe(lab.facts.leaderBefore);
        expect(lab.facts.majorityResumedMs).toBeGreaterThan(0);
        expect(lab.facts.cutOffLeaderPublishes.confirm).toBe(0);
        expect(lab.facts.history.entries.length).toBeGreaterThan(0);
        // the held delivery's return: uncounted where the broker kept it for the timeout (4.3.0+, the lab set
        // x-consumer-disconnected-timeout), a failed delivery where it returned it at once (3.10, 4.0–4.2)
        expect(lab.facts.heldReturnedMs).not.toBeNull();
        expect(lab.facts.heldDeliveryCount ?? 0).toBe(lab.facts.consumerDisconnectedTimeoutMs === null ? 1 : 0);
        await expectNothingLeft(`round ${round}`);
      }
    },
    ROUNDS.length * RUN_CAP_MS + 30_000,
  ); // each round as long as any one run may take (3.10.8 restarts a node in each)
});
