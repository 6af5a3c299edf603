/**
 * The teacher's board as one page: a card per student (columns as wide as the screen allows: thirty
 * fit a 1920×1080 projector), a chip per lab they ran (its newest run,
 * newest first, ×N for N runs) — PASS / FAIL (the failed checks by name) / SKIP (why, on hover) /
 * running (for how long) / ended without a verdict — and their prediction next to the verdict (✓ / ✗). Redrawn from each `board` event of /events;
 * nothing is fetched from elsewhere. Sized to be read from the back of a room.
 */
import { TOKEN_OUT_OF_ADDRESS } from '../page/loopback.js';

const STYLE = `
body{font:18px/1.35 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24}
header{display:flex;gap:24px;align-items:baseline;padding:14px 20px;background:#1b1f24;color:#fff}
header h1{font-size:24px;margin:0}header .sum{font-size:18px;opacity:.9}
#grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:8px;padding:8px}
.card{background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:6px 10px}
.card h2{font-size:22px;margin:0 0 4px;display:flex;gap:14px;align-items:baseline}
.card h2 span{font-size:15px;font-weight:400;color:#57606a}
.chip{display:inline-block;margin:0 6px 6px 0;padding:3px 8px;border-radius:8px;border:2px solid;background:#fff}
.chip b{font-weight:700}.chip small{display:block;font-size:14px;color:#57606a}
.passed{border-color:#1a7f37}.passed b{color:#1a7f37}
.failed{border-color:#cf222e}.failed b{color:#cf222e}
.running{border-color:#0969da}.running b{color:#0969da}
.skipped,.lost{border-color:#8c959f}.skipped b,.lost b{color:#57606a}
.error{border-color:#9a6700}.error b{color:#9a6700}
.right{color:#1a7f37}.wrong{color:#cf222e}
.none{color:#8c959f;font-style:italic}
#gone{display:none;padding:10px 20px;background:#fff8c5}`;

const SCRIPT = `
${TOKEN_OUT_OF_ADDRESS}
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'})[c]);
const secs = (ms) => ms < 10000 ? (ms / 1000).toFixed(1) + ' s' : Math.round(ms / 1000) + ' s';
const VERDICT = {passed: 'PASS', failed: 'FAIL', skipped: 'SKIP', error: 'ERROR', lost: 'ended without a verdict'};
let board = null;
function chip(r, tries) {
  const age = Date.now() - Date.parse(r.started);
  const head = r.state === 'running' ? 'running ' + secs(age) : VERDICT[r.state] + (r.ms != null && r.state !== 'skipped' ? ' ' + secs(r.ms) : '');
  const lines = [];
  if (r.fails.length) lines.push(r.fails.map((f) => esc(f.name)).join(', '));
  if (r.state === 'error') lines.push(esc((r.why || '').slice(0, 90)));
  if (r.prediction) lines.push('predicted ' + r.prediction.map((p) =>
    '<span class="' + (p.right === true ? 'right' : p.right === false ? 'wrong' : '') + '">' + esc(p.name + (p.op || '=') + p.said) +
    (p.right === true ? ' ✓' : p.right === false ? ' ✗ (' + esc(p.actual) + ')' : '') + '</span>').join(' '));
  else if (r.predict) lines.push('predicted ' + esc(r.predict));
  const title = [r.why || '', ...r.fails.map((f) => f.name + ': expected=' + f.expected + ' actual=' + f.actual)].filter(Boolean).join('\\n');
  return '<span class="chip ' + r.state + '" title="' + esc(title) + '"><b>' + esc(r.lab) + '</b> ' + head +
    (tries > 1 ? ' <small style="display:inline">×' + tries + '</small>' : '') +
    lines.map((l) => '<small>' + l + '</small>').join('') + '</span>';
}
/** the newest run of each lab, newest first, with how many runs of it there were */
function latest(runs) {
  const by = new Map();
  for (const r of runs) { const e = by.get(r.lab); if (e) e.tries++; else by.set(r.lab, { run: r, tries: 1 }); }
  return [...by.values()];
}
function draw() {
  if (!board) return;
  let running = 0, passed = 0, failed = 0;
  const rows = board.students.map((s) => {
    const labs = latest(s.runs);
    const p = labs.filter((l) => l.run.state === 'passed').length, f = labs.filter((l) => l.run.state === 'failed').length;
    running += s.runs.filter((r) => r.state === 'running').length; passed += p; failed += f;
    return '<div class="card"><h2>' + esc(s.name) + '<span>' + p + ' passed · ' + f + ' failed</span></h2>' +
      (labs.length ? labs.map((l) => chip(l.run, l.tries)).join('') : '<span class="none">no run yet</span>') + '</div>';
  });
  document.getElementById('grid').innerHTML = rows.join('');
  document.getElementById('sum').textContent = board.students.length + ' students · ' + running + ' running · ' +
    passed + ' labs passed · ' + failed + ' failing · updated ' + new Date(board.at).toLocaleTimeString();
}
const es = new EventSource('/events');
es.addEventListener('board', (e) => { board = JSON.parse(e.data); draw(); });
es.addEventListener('gone', (e) => { document.getElementById('gone').style.display = 'block'; document.getElementById('gone').textContent = JSON.parse(e.data); es.close(); });
setInterval(draw, 1000);`;

export function boardHtml(title: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>${STYLE}</style></head>
<body><header><h1>${title}</h1><span class="sum" id="sum">waiting for the first reading…</span></header>
<div id="gone"></div><div id="grid"></div><script>${SCRIPT}</script></body></html>`;
}
