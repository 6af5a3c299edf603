/**
 * The bench: the part of a lab's page a class watches — the topology graph with the queues' counts
 * and the messages as tokens, the current step (what happens, the message, the counts and the
 * business rows at that moment, Continue while a live run is paused) and the player's controls.
 * The same HTML serves `--live` (filled in by server-sent events) and `--html FILE` (the recorded
 * steps embedded): the page's script (page-script.ts) draws either.
 */
import type { Topology } from '../broker/topology.js';
import type { DepthSeries } from '../broker/depth-sampler.js';
import { esc } from './html-marks.js';
import { laneKey, lanes, type TimelineEvent } from './html-layout.js';
import { buildGraph, tokenWidth } from './graph.js';
import { graphSvg } from './graph-svg.js';
import { buildSteps, type Step } from './steps.js';
import { policyEdges, policyRoom } from './policy.js';
import { drawnBindings } from './bindings.js';
import { flowEdges } from './flows.js';

type BenchVerdict = 'PASS' | 'FAIL' | 'SKIP' | 'RUNNING';

export interface BenchLab {
  lab: string;
  title: string;
  verdict: BenchVerdict;
  faults: string[];
  lines: string[];
  queues: string[];
  graph: string;
  steps: Step[];
}

interface BenchSource {
  lab: string;
  title: string;
  verdict: BenchVerdict;
  faults?: string[];
  lines?: string[];
  events: TimelineEvent[];
  depths?: DepthSeries | undefined;
  topology: Topology | null;
  descriptions: Record<string, string>;
}

/** the processes of the run: lanes that are processes or the lab's own sources, not the checkpoints */
const processLanes = (events: TimelineEvent[]) =>
  lanes(events)
    .filter((l) => l.kind !== 'checkpoints')
    .map((l) => l.key)
    .filter((k) => events.some((e) => laneKey(e) === k && e.source !== 'replay-gate'));

/** per node: the widths of the tokens at it, at each step that had any (the graph keeps rows for the most) */
function tokensAt(steps: readonly Step[]): Record<string, number[][]> {
  const out: Record<string, number[][]> = {};
  for (const s of steps) {
    const at: Record<string, number[]> = {};
    for (const t of Object.values(s.tokens)) (at[t.at] ??= []).push(tokenWidth(t.label));
    for (const [node, widths] of Object.entries(at)) (out[node] ??= []).push(widths);
  }
  return out;
}

export function benchLab(src: BenchSource): BenchLab {
  // the declared bindings and any other the broker listed: the graph has an edge for each
  const topology = src.topology && { ...src.topology, bindings: drawnBindings(src.topology, src.depths, src.events) };
  // what the processes did so far: publishes to queues, deliveries from them
  const flows = flowEdges(src.events, topology?.queues.map((q) => q.name) ?? []);
  const steps = buildSteps({
    events: src.events,
    depths: src.depths,
    topology,
    descriptions: src.descriptions,
    flows,
  });
  return {
    lab: src.lab,
    title: src.title,
    verdict: src.verdict,
    faults: src.faults ?? [],
    lines: src.lines ?? [],
    queues: src.topology?.queues.map((q) => q.name) ?? [],
    graph: graphSvg(
      buildGraph(topology, processLanes(src.events), {
        policyRoom: policyRoom(src.depths),
        policyEdges: policyEdges(src.depths, topology),
        tokens: tokensAt(steps),
        flows,
      }),
    ),
    steps,
  };
}

/** JSON inside a <script> element: nothing in it can close the element */
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

/** the bench's HTML; `live` pages get their data from /events, recorded ones carry it in #bench-data */
export function benchHtml(labs: BenchLab[], live: boolean): string {
  const first = labs[0];
  const fault =
    `<div class="fault-banner" id="fault-banner"${first?.faults.length ? '' : ' hidden'} role="status">` +
    `BROKEN VARIANT (MQLAB_FAULT): <span id="fault-names">${esc(first?.faults.join(', ') ?? '')}</span> — this is not the correct experiment</div>`;
  return `${fault}
<nav class="labs-nav" id="labs-nav" aria-label="labs of the run"></nav>
<section class="now" aria-live="polite" aria-label="this step">
<div class="now-text"><h2 class="step-title" id="step-title"></h2><p class="step-desc" id="step-desc"></p>
<p class="bindings-now" id="bindings-now" hidden></p><p class="bindings-now" id="gone-now" hidden></p><p class="since-pause" id="since-pause" hidden></p><p class="viewer-note" id="viewer-note" hidden></p></div>
<div class="step-head"><div class="step-no" id="step-no">${live ? 'waiting for the run…' : ''}</div><button id="continue" type="button" hidden>Continue ⏎</button></div>
</section>
<section class="bench" aria-label="the lab bench">
<div class="stage-col">
<div class="stage" id="stage">${first?.graph ?? ''}</div>
<nav class="player" id="player" aria-label="player">
<button type="button" id="first" aria-label="first step (Home)">|◀</button><button type="button" id="prev" aria-label="previous step (←)">◀</button>
<button type="button" id="play" aria-label="play or pause (space)">▶</button><button type="button" id="next" aria-label="next step (→)">▶▶</button>
<label>speed <select id="speed"><option value="0.5">0.5×</option><option value="1" selected>1×</option><option value="2">2×</option><option value="4">4×</option></select></label>
<input type="range" id="scrub" min="0" max="0" value="0" aria-label="step"><span id="pos">0 / 0</span>
<span class="basis keys">keys: ← → step · space play/pause${live ? ' · Enter Continue' : ''}</span>
</nav>
</div>
<aside class="step-panel" aria-label="the step's message, reports and queues">
<h3 id="message-head">Message</h3><dl class="kv flow" id="message"></dl><details class="more-fields" id="message-more" hidden><summary></summary><dl class="kv flow" id="message-rest"></dl></details>
<h3 id="business-head">What the lab reported <span class="basis" id="business-from"></span></h3><dl class="kv flow" id="business"></dl>
<h3>Queues at this step</h3><table id="counts"></table><p class="basis" id="counts-basis"></p>
<details class="event-fields"><summary>This step’s event</summary><dl class="kv" id="event"></dl></details>
</aside>
</section>
<script type="application/json" id="bench-data">${scriptJson({ live, labs })}</script>`;
}
