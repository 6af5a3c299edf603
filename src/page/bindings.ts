/**
 * The bindings a lab's graph draws: those its topology declared, then any other the broker listed
 * during the run (a depth sample's, a checkpoint's view) — so a binding the lab adds is drawn too.
 * Each step then says which of them the broker had (Step.counts.bindings): the page draws the
 * others as not bound (hold's removed hold.dlx → hold.target).
 */
import type { DepthSeries } from '../broker/depth-sampler.js';
import type { BindingSpec, Topology } from '../broker/topology.js';
import type { BindingAt, CheckpointView } from '../core/checkpoint-view.js';
import type { TimelineEvent } from './html-layout.js';

const same = (a: BindingSpec, b: BindingAt) => a.exchange === b.exchange && a.queue === b.queue && a.key === b.key;

export function drawnBindings(
  topology: Topology | null,
  depths: DepthSeries | undefined,
  events: readonly TimelineEvent[],
): BindingSpec[] {
  const out: BindingSpec[] = [...(topology?.bindings ?? [])];
  const queues = new Set(topology?.queues.map((q) => q.name) ?? []);
  const add = (list: readonly BindingAt[] | null | undefined) => {
    for (const b of list ?? [])
      if (queues.has(b.queue) && !out.some((x) => same(x, b)))
        out.push({ exchange: b.exchange, queue: b.queue, key: b.key });
  };
  for (const s of depths?.samples ?? []) add(s.bindings);
  for (const e of events) add((e as { view?: CheckpointView }).view?.broker?.bindings);
  return out;
}
