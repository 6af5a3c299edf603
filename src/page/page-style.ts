/**
 * The bench's CSS (graph, step panel, player controls): a projector first, high contrast, large type.
 * Under the header, the step as one bar the whole width: what happens (at a pause, what it means,
 * what the broker no longer binds) and Continue — above the fold at 1280×720 whatever the graph's
 * size; then the graph and its player, sized to the height left (page-script.ts fit()), and beside
 * it (or below, where it has no room) the message, what the lab reported, the queues' table and the event.
 */
export const BENCH_CSS = `
body { margin: 10px 16px; }
.top { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 18px; }
.top h1 { font-size: 36px; margin: 0; } .top .badge { font-size: 30px; padding: 0 12px; } .lab-title { font-size: 20px; }
.top + .meta { margin: 0 0 4px; } pre.lines { margin: 4px 0 8px; font-size: 22px; padding: 4px 10px; }
@media (min-width: 1600px) { body { margin: 14px 24px; } pre.lines { font-size: 24px; } }
@media (max-width: 1599px) { nav.player .keys { display: none; } }
.fault-banner { border: 4px dashed #a32700; background: #fff0eb; color: #7a1d00; font-weight: 800; font-size: 24px; padding: 6px 14px; margin: 8px 0; }
.live-state { font-weight: 700; font-size: 22px; padding: 2px 10px; border: 2px solid #000; border-radius: 6px; }
.labs-nav { display: flex; flex-wrap: wrap; gap: 6px; margin: 6px 0; } .labs-nav button { font-size: 18px; }
.labs-nav button[aria-current="true"] { background: #000; color: #fff; }
.bench { display: flex; flex-wrap: wrap; gap: 14px; align-items: flex-start; margin: 6px 0 10px; }
.stage-col { flex: 0 1 auto; min-width: 0; max-width: 100%; }
.stage { border: 2px solid #000; border-radius: 8px; padding: 4px; background: #fff; }
.bench > .step-panel { flex: 1 1 0; min-width: 320px; box-sizing: border-box; }
@media (min-width: 1600px) { .bench > .step-panel { min-width: 360px; } }
svg.graph { width: 100%; height: auto; display: block; }
.g-node rect { fill: #fff; stroke: #000; stroke-width: 2.5; }
.g-queue rect { fill: #eef6ff; } .g-exchange rect { fill: #fff7e6; } .g-process rect { fill: #f2f2f2; }
.g-process.crashed rect { fill: #fff0eb; stroke: #a32700; stroke-width: 4; } .g-process.ended rect { stroke-dasharray: 6 4; }
.g-node.active rect { stroke: #0057b8; stroke-width: 6; }
.g-name { font-size: 25px; font-weight: 800; } .g-note { font-size: 20px; fill: #222; }
.g-count, .g-state { font-size: 20px; font-weight: 700; fill: #000; } .g-count .stale { fill: #555; font-style: italic; }
.step-panel td.stale { color: #555; font-style: italic; }
.g-edge { fill: none; stroke: #000; stroke-width: 2.5; } .g-dead-letter { stroke: #a32700; stroke-dasharray: 8 5; } .g-flow { stroke: #0057b8; stroke-width: 2.5; }
.g-policy { font-size: 20px; fill: #4b1d7a; font-weight: 600; } .g-policy-name { font-weight: 800; } .g-policy.none { fill: #555; font-weight: 400; font-style: italic; }
.g-queue.has-policy rect { stroke: #4b1d7a; stroke-width: 4; }
.g-policy-route { stroke: #4b1d7a; } .g-policy-route.off { stroke-opacity: .3; }
.g-binding.off { stroke: #a32700; stroke-dasharray: 3 6; stroke-opacity: .55; } .g-note.off { fill: #a32700; text-decoration: line-through; }
.bindings-now { font-size: 20px; font-weight: 700; color: #7a1d00; margin: 4px 0; } .bindings-now[hidden] { display: none; }
.g-edge-label { font-size: 20px; fill: #7a1d00; font-weight: 600; paint-order: stroke; stroke: #fff; stroke-width: 4px; }
marker path { fill: #000; }
.token rect { fill: #0057b8; stroke: #000; stroke-width: 1.5; } .token.done rect { fill: #6b6b6b; } .token.current rect { fill: #b34000; stroke-width: 3; }
.token text { font: 800 21px ui-monospace, monospace; fill: #fff; }
.token .strike { display: none; stroke: #a32700; stroke-width: 3; } .token.skipped .strike { display: inline; } .token.skipped rect { fill: #fff; stroke: #a32700; stroke-dasharray: 4 3; } .token.skipped text { fill: #7a1d00; }
.token { transition: transform .45s ease-in-out; } .token.moving rect { stroke: #fff; stroke-width: 3; }
@media (prefers-reduced-motion: reduce) { .token { transition: none; } }
.step-panel { border: 2px solid #000; border-radius: 8px; padding: 6px 14px 10px; min-width: 0; overflow-wrap: anywhere; }
.now { display: flex; align-items: flex-start; gap: 4px 18px; border-left: 8px solid #00603f; background: #f2f8f5; padding: 4px 12px; margin: 6px 0; }
.now-text { flex: 1 1 0; min-width: 0; overflow-wrap: anywhere; }
.step-head { display: flex; flex-direction: column; align-items: flex-end; gap: 2px; flex: 0 0 auto; }
.step-no { font-size: 20px; font-weight: 700; white-space: nowrap; } .step-title { font-size: 27px; margin: 0 0 2px; line-height: 1.2; }
.step-desc { font-size: 21px; line-height: 1.3; margin: 0 0 2px; } .step-desc:empty { display: none; }
.now .bindings-now, .now .viewer-note, .now .since-pause { margin: 0 0 2px; }
.since-pause { font-size: 20px; font-weight: 700; color: #0057b8; display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden; } .since-pause[hidden] { display: none; }
.step-panel table { border-collapse: collapse; width: 100%; } .step-panel td, .step-panel th { border: 1px solid #777; padding: 2px 6px; text-align: right; font-size: 20px; }
.step-panel td:first-child, .step-panel th:first-child { text-align: left; overflow-wrap: normal; }
.step-panel td:not(:first-child), .step-panel th:not(:first-child) { white-space: nowrap; width: 1%; }
.step-panel h3 { font-size: 20px; margin: 6px 0 1px; } .step-panel h3 .basis { font-weight: 400; margin-left: 6px; } .basis { font-size: 18px; color: #222; margin: 2px 0; }
details.event-fields summary { font-size: 18px; cursor: pointer; }
dl.kv { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0 10px; margin: 2px 0; font-size: 18px; }
dl.kv dt { font-weight: 700; } dl.kv dd { margin: 0; font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
dl.kv.flow { display: flex; flex-wrap: wrap; gap: 1px 20px; line-height: 1.3; }
dl.kv.flow .kv-item { display: flex; flex-wrap: wrap; column-gap: 8px; max-width: 100%; min-width: 0; } dl.kv.flow dt { white-space: nowrap; }
details.more-fields summary { font-size: 18px; cursor: pointer; } details.more-fields[hidden] { display: none; }
dl.kv.flow > details.more-fields[open] { flex-basis: 100%; }
#continue { font-size: 26px; font-weight: 800; padding: 4px 22px; background: #00603f; color: #fff; border: 0; border-radius: 8px; margin: 2px 0 4px; cursor: pointer; }
#continue:focus-visible, nav.player button:focus-visible { outline: 4px solid #d55e00; outline-offset: 2px; }
#continue[hidden] { display: none; }
.viewer-note { font-size: 18px; font-weight: 700; }
nav.player { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 10px; margin: 6px 0 0; font-size: 20px; }
nav.player button, nav.player select { font-size: 22px; min-width: 52px; padding: 2px 10px; }
nav.player input[type=range] { flex: 1 1 160px; min-width: 120px; }
/* below 1600 px the panel may be 320 px wide (fit()): its table's four columns fit in it */
@media (max-width: 1599px) { .step-panel { padding: 6px 10px 10px; } .step-panel td, .step-panel th { font-size: 18px; padding: 2px 3px; }
  .step-panel td:first-child { overflow-wrap: anywhere; } /* a name part longer than the column (a long namespace) breaks */ }
@media (min-width: 1600px) {
  .step-no { font-size: 24px; } .step-title { font-size: 32px; } .step-desc { font-size: 25px; } .step-panel h3 { font-size: 24px; }
  dl.kv { font-size: 23px; } .step-panel td, .step-panel th { font-size: 22px; } .basis, details.event-fields summary, details.more-fields summary { font-size: 20px; }
}
@media print { body { margin: 0; } pre.lines { font-size: 13px; } .stage-col, .bench > .step-panel { flex: 1 1 100%; } svg.graph { width: 100% !important; height: auto !important; } }
.cursor { stroke: #d55e00; stroke-width: 3; }
`;
