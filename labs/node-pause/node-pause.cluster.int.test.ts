/**
 * node-pause on the cluster `mqlab up --nodes 3` started (the cluster suite): three runs in a row pass, and
 * afterwards no nft table of the set, no stopped node and no partition is left; every member runs again.
 */
import { describe, expect, it } from 'vitest';
import { failedChecks, mqlab, RUN_CAP_MS, useNamespace } from '../../test/helpers.js';
import { clusterNodes, expectNothingLeft } from '../../test/cluster-left.js';

interface LabRun {
  status: string;
  facts: {
    frozen: string;
    leaderBefore: string;
    majorityResumedMs: number;
    frozenLeaderPublishes: { nack: number; lost: number };
    history: { entries: unknown[] };
  };
}

useNamespace('t_npc');

const ROUNDS = [1, 2, 3];

describe('node-pause on a 3-node cluster', () => {
  it(
    'passes three times in a row and leaves no rule and no stopped node behind',
    async () => {
      clusterNodes(); // the cluster suite needs the cluster
      for (const round of ROUNDS) {
        const r = await mqlab(['node-pause', '--json', '--stream', '2s', '--pause-for', '14s']);
        expect(r.code, `round ${round}: ${r.stderr}\n${failedChecks(r.stdout)}`).toBe(0);
        const lab = (JSON.parse(r.stdout) as { labs: LabRun[] }).labs[0]!;
        expect(lab.status).toBe('passed');
        expect(lab.facts.frozen).toBe(lab.facts.leaderBefore);
        expect(lab.facts.majorityResumedMs).toBeGreaterThan(0);
        expect(lab.facts.frozenLeaderPublishes.nack + lab.facts.frozenLeaderPublishes.lost).toBe(0);
        expect(lab.facts.history.entries.length).toBeGreaterThan(0);
        await expectNothingLeft(`round ${round}`);
      }
    },
    ROUNDS.length * RUN_CAP_MS + 30_000,
  ); // each round as long as any one run may take (3.10.8 restarts a node in each)
});
