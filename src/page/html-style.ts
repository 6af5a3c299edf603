/** The --html pages' inline CSS (screen and print) and the small script for hover details. */

export const CSS = `
:root { font: 18px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: #000; background: #fff; }
body { margin: 16px 24px; max-width: none; }
h1 { font-size: 34px; margin: 0 0 4px; } h2 { font-size: 24px; margin: 22px 0 8px; }
.meta, .note { color: #222; } .note { font-size: 18px; }
.badge { display: inline-block; white-space: nowrap; padding: 1px 8px; border: 2px solid; border-radius: 4px; font-weight: 700; letter-spacing: .03em; }
.badge.pass { color: #00603f; border-color: #00603f; } .badge.fail { color: #a32700; border-color: #a32700; background: #fff0eb; }
.badge.skip { color: #555; border-color: #777; border-style: dashed; }
pre.lines { background: #f4f4f4; padding: 8px 10px; border-left: 6px solid #333; white-space: pre-wrap; font: 700 24px/1.35 ui-monospace, monospace; }
.timeline { width: 100%; height: auto; display: block; border: 1px solid #ccc; }
.band.even { fill: #fafafa; } .band.odd { fill: #efefef; }
.lane-label { font-weight: 700; font-size: 18px; } .lane-sub { font-size: 16px; fill: #333; }
.axis-title { font-size: 16px; fill: #333; } .tick { stroke: #ccc; stroke-width: 1; } .tick-label { font-size: 16px; fill: #111; text-anchor: middle; }
.journey { fill: none; stroke-width: 1.6; stroke-dasharray: 4 2; opacity: .75; }
.cp-line line { stroke: #CC79A7; stroke-width: 1; stroke-dasharray: 2 3; } .cp-line text { font-size: 16px; fill: #7a3a63; }
.crash-line line { stroke: #D55E00; stroke-width: 2.5; } .crash-line text { font-size: 17px; font-weight: 700; fill: #a32700; }
.depth { fill: none; stroke-width: 2.2; } .wait { font-size: 16px; fill: #333; text-anchor: middle; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.ev { cursor: default; } .ev:hover, .ev.hl { filter: drop-shadow(0 0 2px #000); } .journey.hl { stroke-width: 3.5; opacity: 1; }
ul.legend, ul.depth-keys { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 8px 0; }
ul.legend li, ul.depth-keys li { display: flex; align-items: center; gap: 6px; }
table.checks, table.labs { border-collapse: collapse; } table td, table th { border: 1px solid #bbb; padding: 3px 8px; text-align: left; }
div.failed { border: 2px solid #a32700; background: #fff0eb; padding: 2px 12px; margin: 8px 0; } div.failed ul { margin: 6px 0; padding-left: 18px; }
table.events td { font: 18px/1.3 ui-monospace, monospace; vertical-align: top; } table.events td:last-child { word-break: break-all; }
details.events { margin: 10px 0; } details.events summary { cursor: pointer; font-weight: 600; }
tr.fail td { background: #fff0eb; font-weight: 600; }
#tip { position: fixed; pointer-events: none; background: #fffff0; border: 1px solid #333; padding: 4px 6px; font: 18px/1.35 ui-monospace, monospace;
  white-space: pre; display: none; z-index: 2; max-width: 640px; overflow: hidden; }
@media print {
  :root { font-size: 12px; } h1 { font-size: 20px; } pre.lines { font-size: 13px; }
  body { margin: 0; max-width: none; } #tip { display: none !important; } nav.player, #continue, .graph .tokens { display: none !important; }
  .band.even { fill: #fff; } .band.odd { fill: #f2f2f2; } .timeline { border-color: #000; }
  .badge.fail, div.failed { border: 2px solid #a32700; background: #fff0eb; padding: 2px 12px; margin: 8px 0; } div.failed ul { margin: 6px 0; padding-left: 18px; }
table.events td { font: 12px/1.3 ui-monospace, monospace; vertical-align: top; } table.events td:last-child { word-break: break-all; }
details.events { margin: 10px 0; } details.events summary { cursor: pointer; font-weight: 600; }
tr.fail td { background: none; } .journey { opacity: 1; }
  .timeline, table.checks { break-inside: avoid; } details.events { display: none; }
}
`;

/** hover an event: its key=value fields in a box, and its message's journey highlighted */
export const SCRIPT = `
(() => {
  const tip = document.getElementById('tip');
  document.querySelectorAll('svg.timeline .ev').forEach((el) => {
    const text = el.querySelector('title').textContent;
    const id = el.getAttribute('data-message');
    const same = () => id ? document.querySelectorAll('[data-message="' + CSS.escape(id) + '"]') : [el];
    el.addEventListener('mouseenter', () => { tip.textContent = text; tip.style.display = 'block'; same().forEach((m) => m.classList.add('hl')); });
    el.addEventListener('mousemove', (ev) => { tip.style.left = Math.min(ev.clientX + 14, innerWidth - tip.offsetWidth - 4) + 'px'; tip.style.top = (ev.clientY + 14) + 'px'; });
    el.addEventListener('mouseleave', () => { tip.style.display = 'none'; same().forEach((m) => m.classList.remove('hl')); });
  });
})();
`;
