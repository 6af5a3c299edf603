/**
 * Every lab's own topology, declared in this file's namespace (fresh queues: no messages, no
 * consumers), audits with exactly the findings it intends: the labs that build a pitfall or a TTL
 * retry loop on purpose are listed in INTENDED (docs/audit.md says the same).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { registry } from '../labs/registry.js';
import { labOptions } from '../src/lab/lab.js';
import { declareTopology, type Topology } from '../src/broker/topology.js';
import { CONFIG, useServices, useNamespace } from './helpers.js';
import { auditDoc } from './audit-support.js';
import { namespaced } from '../src/core/names.js';

const NS = useNamespace(import.meta.url).namespace;
const s = useServices();

/** lab → the [check, queue] findings its topology intends (queue names without the namespace) */
const INTENDED: Record<string, [string, string][]> = {
  'dlx-loop': [
    ['dead-letter-loop', 'dlxloop.business'],
    ['retry-loop-unbounded', 'dlxloop.fixed.business'],
  ],
  'retry-dlq': [['retry-loop-unbounded', 'orders.work']],
  'requeue-storm': [['retry-loop-unbounded', 'me12.storm.work']],
  'dead-letter-reasons': [['retry-loop-unbounded', 'dlr.twice']],
  // its loop wears down the delivery limit on purpose: the lab shows what the finding warns of; and its wait
  // queue's expired letters go to a trail queue as well as back to work, on purpose: a retry fan-out
  'retry-loop-limit': [
    ['retry-loop-unbounded', 'retry-loop.work'],
    ['dead-letter-retry-fanout', 'retry-loop.wait'],
    ['dead-letter-retry-fanout', 'retry-loop.expired-trail'],
  ],
};

const topologies: { lab: string; ns: string; topology: Topology }[] = [];

afterAll(async () => {
  const ch = await s.broker.newChannel();
  for (const { topology } of topologies) {
    for (const q of topology.queues) await ch.deleteQueue(q.name);
    for (const x of topology.exchanges ?? []) await ch.deleteExchange(x.name);
  }
  await ch.close();
});

describe("the labs' topologies", () => {
  it('each audits with exactly its intended findings', { timeout: 300_000 }, async () => {
    // one namespace per lab (<file ns>_<i>): two labs' names never meet in one route
    for (const [i, entry] of registry.entries()) {
      const { lab } = await entry.load();
      const ns = `${NS}_${i}`;
      const topology = lab.topology?.(namespaced(ns), labOptions(entry));
      if (!topology) continue;
      await declareTopology(s.broker, topology);
      topologies.push({ lab: entry.name, ns, topology });
    }
    const doc = await auditDoc();
    const got: Record<string, [string, string][]> = {};
    for (const { lab, ns } of topologies) {
      // a finding's object, or the queues of a finding about several (a loop shape shared by labs)
      const names = (f: (typeof doc.findings)[number]) => [f.object.queue ?? f.object.name, ...(f.queues ?? [])];
      const fs = doc.findings.flatMap((f) =>
        [...new Set(names(f))]
          .filter((n) => n.startsWith(`${ns}.`))
          .map((n) => [f.check, n.slice(ns.length + 1)] as [string, string]),
      );
      if (fs.length) got[lab] = fs;
    }
    expect(got).toEqual(INTENDED);
    // each intended finding points to a lab that exists, with the vhost the topology lives in
    for (const f of doc.findings.filter((f) => f.object.name.startsWith(`${NS}_`))) {
      if (f.lab !== null) expect(registry.map((l) => l.name)).toContain(f.lab);
      expect(f.vhost).toBe(CONFIG.vhost);
    }
  });
});
