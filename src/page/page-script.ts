/**
 * The bench page's script (inline, no library): shows one step of the current lab — the graph's
 * counts, tokens and process states, the step panel, the timeline's cursor — and moves between
 * steps (← → space, the player's buttons, #step=N in the URL). On a live page it reads the run
 * from /events (server-sent events), follows the newest step, and sends Continue for a paused
 * checkpoint (button or Enter) when this page holds the run's control. Stepping forward, the
 * step's message moves along the edge paths of the route it took (step.route), frame by frame,
 * then into its place; a queue's node shows the policy its management sample had at the step.
 */
import { TOKEN_OUT_OF_ADDRESS } from './loopback.js';

export const BENCH_SCRIPT = String.raw`
(() => {
  const $ = (id) => document.getElementById(id);
  const data = JSON.parse($('bench-data').textContent);
  const st = { labs: data.labs, lab: 0, step: 0, follow: data.live, pinned: false, playing: null, key: null, ended: !data.live, sent: null };
  const esc = (v) => String(v).replace(/[&<>"']/g, (c) => '&#' + c.charCodeAt(0) + ';');
  const fmt = (ms) => { if (ms === null || ms === undefined) return '–'; if (Math.abs(ms) < 999.5) return Math.round(ms) + ' ms'; const s = ms / 1000; return Number(s.toFixed(Math.abs(s) < 10 ? 2 : 1)) + ' s'; };
  const num = (v) => (v === null || v === undefined ? '–' : String(v));
  const lab = () => st.labs[st.lab];
  const reduced = matchMedia('(prefers-reduced-motion: reduce)').matches;
  const anims = new Map();
  // a field that is an object or a list (a checkpoint's view) as JSON, not "[object Object]"
  const fieldText = (v) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : v);
  const kv = (el, fields) => { el.innerHTML = Object.entries(fields || {}).map(([k, v]) => '<dt>' + esc(k) + '</dt><dd>' + esc(fieldText(v)) + '</dd>').join(''); };
  // a message's fields as a class reads them: what says where it is and how often it was tried first,
  // keys with one value together (aggregateId · correlationId), the rest folded away
  const FIRST = ['messageId', 'eventId', 'orderId', 'aggregateId', 'attempt', 'redelivered', 'deliveryCount', 'xDeath', 'publishId', 'at', 'error', 'reason'];
  const groups = (fields) => {
    const out = [];
    for (const [k, v] of Object.entries(fields || {})) {
      const t = String(fieldText(v)); const same = t.length > 3 && !/^(\d+|true|false)$/.test(t) && out.find((g) => g.v === t);
      if (same) same.k.push(k); else out.push({ k: [k], v: t });
    }
    const rank = (g) => Math.min(...g.k.map((k) => (FIRST.includes(k) ? FIRST.indexOf(k) : 99)));
    return out.map((g, i) => ({ ...g, i })).sort((a, b) => rank(a) - rank(b) || a.i - b.i).map((g) => ({ ...g, first: rank(g) < 99 }));
  };
  const items = (gs) => gs.map((g) => '<div class="kv-item"><dt>' + g.k.map(esc).join(' · ') + '</dt><dd>' + esc(g.v).replace(/,/g, ',<wbr>') + '</dd></div>').join('');
  // the folded fields go last in the flow, as one more item ("4 more fields")
  const moreFields = $('message-more');
  function flow(el, fields, more) {
    const gs = groups(fields); const first = more ? gs.filter((g) => g.first) : gs; const rest = more ? gs.filter((g) => !g.first) : [];
    el.innerHTML = items(first);
    if (!more) return;
    more.hidden = rest.length === 0; more.querySelector('summary').textContent = rest.length + ' more field' + (rest.length === 1 ? '' : 's');
    more.querySelector('dl').innerHTML = items(rest); el.appendChild(more);
  }

  function readHash() {
    const m = /step=(\d+)/.exec(location.hash); const l = /lab=([\w-]+)/.exec(location.hash);
    if (l) { const i = st.labs.findIndex((x) => x.lab === l[1]); if (i >= 0) { st.lab = i; st.pinned = true; } }
    if (m && lab()) { st.step = Math.min(Math.max(0, Number(m[1]) - 1), Math.max(0, lab().steps.length - 1)); st.follow = false; }
  }
  function writeHash() {
    const h = (st.labs.length > 1 ? 'lab=' + lab().lab + '&' : '') + 'step=' + (st.step + 1);
    if (location.hash.slice(1) !== h) history.replaceState(null, '', '#' + h);
  }

  let shownGraph = null;
  function drawGraph(l) {
    if (shownGraph === l.graph) return;
    for (const a of [...anims.values()]) a.cancel();
    $('stage').innerHTML = l.graph; shownGraph = l.graph; fit();
  }
  // the graph as large as the screen lets it be beside the step panel, above the fold with its player:
  // never below its minimum scale (its text 18 px on screen), or its floor (16 px) where that keeps the
  // panel beside it (1280×720: the step's message above the fold); where the panel has no room beside
  // it even then, the panel goes below and the graph takes the width
  function fit() {
    const svg = $('stage').querySelector('svg.graph'); if (!svg) return;
    const vb = svg.viewBox.baseVal; if (!vb || !vb.width) return;
    const bench = document.querySelector('section.bench'); const stage = $('stage');
    const frame = stage.offsetWidth - stage.clientWidth + 8; // borders and padding
    const top = stage.getBoundingClientRect().top + scrollY;
    const below = $('player').offsetHeight + 12;
    const high = innerHeight - top - below - frame;
    const panel = innerWidth >= 1600 ? 560 : 320; // below 1600 px: page-style.ts's min-width of the panel
    const wide = bench.clientWidth - panel - 14 - frame - 2;
    const least = vb.width * Number(svg.dataset.minScale || 1);
    let w = Math.min(wide, (high * vb.width) / vb.height);
    const floor = vb.width * Number(svg.dataset.floorScale || svg.dataset.minScale || 1);
    if (w < least) w = wide >= least ? least : wide >= Math.ceil(floor) ? wide : Math.min(bench.clientWidth - frame, Math.max(least, (high * vb.width) / vb.height));
    svg.style.width = Math.floor(w) + 'px'; svg.style.height = Math.floor((w * vb.height) / vb.width) + 'px';
    $('stage').parentElement.style.width = Math.floor(w) + frame + 'px';
  }
  addEventListener('resize', fit);
  // the token's centre follows the route's edge paths (each runs from its data-from to its data-to)
  function moveAlong(svg, g, id, route, from, to, w) {
    const paths = [];
    for (let k = 0; k + 1 < route.length; k++) {
      const p = svg.querySelector('path.g-edge[data-from="' + CSS.escape(route[k]) + '"][data-to="' + CSS.escape(route[k + 1]) + '"]');
      if (!p) return false; paths.push(p);
    }
    const lens = paths.map((p) => p.getTotalLength()); const total = lens.reduce((a, b) => a + b, 0);
    if (!paths.length || !total) return false;
    const speed = Number($('speed').value) || 1;
    const lead = from ? 250 / speed : 0, dur = Math.min(2200, Math.max(800, total * 2.5)) / speed;
    const start = paths[0].getPointAtLength(0); const t0 = performance.now();
    const a = { key: st.lab + ':' + st.step, final: to, raf: 0 };
    const place = (x, y) => g.setAttribute('transform', 'translate(' + x + ',' + y + ')');
    const finish = () => { anims.delete(id); g.style.transition = ''; delete g.dataset.moving; delete g.dataset.edge; g.classList.remove('moving'); place(a.final[0], a.final[1]); };
    a.cancel = () => { cancelAnimationFrame(a.raf); finish(); };
    g.style.transition = 'none'; g.classList.add('moving'); anims.set(id, a);
    const frame = (now) => {
      const el = now - t0;
      if (el < lead) { const f = el / lead; g.dataset.moving = 'to-path'; place(from[0] + (start.x - w / 2 - from[0]) * f, from[1] + (start.y - 14 - from[1]) * f); }
      else if (el < lead + dur) {
        let d = ((el - lead) / dur) * total, k = 0;
        while (k < lens.length - 1 && d > lens[k]) { d -= lens[k]; k++; }
        const pt = paths[k].getPointAtLength(Math.min(d, lens[k]));
        g.dataset.moving = 'path'; g.dataset.edge = route[k] + '>' + route[k + 1]; place(pt.x - w / 2, pt.y - 14);
      } else return finish();
      a.raf = requestAnimationFrame(frame);
    };
    a.raf = requestAnimationFrame(frame);
    return true;
  }
  function drawTokens(s, l, forward) {
    const svg = $('stage').querySelector('svg.graph'); if (!svg) return;
    const key = st.lab + ':' + st.step;
    for (const [id, a] of anims) if (a.key !== key) a.cancel();
    const layer = svg.querySelector('.tokens'); const seen = new Set(); const perNode = {};
    const cur = s ? s.token || s.messageId : null;
    for (const [id, tok] of Object.entries(s ? s.tokens : {})) {
      const node = svg.querySelector('[data-node="' + CSS.escape(tok.at) + '"]'); if (!node) continue;
      // pills from the node's right edge leftwards, the next row below when one is full (graph.ts tokenRowsFor)
      const w = 16 + tok.label.length * 12;
      const row = perNode[tok.at] || (perNode[tok.at] = { x: Number(node.dataset.right), y: Number(node.dataset.cy) });
      if (row.x - w < Number(node.dataset.x) && row.x < Number(node.dataset.right)) { row.x = Number(node.dataset.right); row.y += 34; }
      const x = row.x - w, y = row.y; row.x = x - 6;
      let g = layer.querySelector('[data-token="' + CSS.escape(id) + '"]');
      if (!g) { g = document.createElementNS('http://www.w3.org/2000/svg', 'g'); g.setAttribute('class', 'token'); g.dataset.token = id;
        g.innerHTML = '<rect height="28" rx="14"></rect><text x="8" y="21"></text><line class="strike" x1="6" y1="14" y2="14"></line><title></title>'; layer.appendChild(g); }
      g.querySelector('rect').setAttribute('width', w); g.querySelector('line').setAttribute('x2', w - 6);
      g.querySelector('text').textContent = tok.label; g.querySelector('title').textContent = id.replace('@', ', publish ') + (tok.skipped ? ' (skipped as a duplicate)' : '') + ' at ' + tok.at.slice(2);
      const was = g.getAttribute('transform'); const m = was && /translate\(([-\d.e]+),([-\d.e]+)\)/.exec(was);
      const moving = anims.get(id);
      if (moving) moving.final = [x, y];
      else if (!(forward && !reduced && id === cur && s.route && moveAlong(svg, g, id, s.route, m ? [Number(m[1]), Number(m[2])] : null, [x, y], w)))
        g.setAttribute('transform', 'translate(' + x + ',' + y + ')');
      g.dataset.at = tok.at;
      g.classList.toggle('done', tok.done); g.classList.toggle('skipped', !!tok.skipped); g.classList.toggle('current', id === cur); seen.add(id);
    }
    layer.querySelectorAll('.token').forEach((g) => { if (!seen.has(g.dataset.token)) g.remove(); });
    svg.querySelectorAll('.g-node').forEach((n) => n.classList.remove('active'));
    if (s) { const n = svg.querySelector('[data-node="' + CSS.escape('p:' + s.lane) + '"]'); if (n) n.classList.add('active'); }
    svg.querySelectorAll('.g-process').forEach((n) => {
      const state = s ? s.processes[n.dataset.node.slice(2)] : undefined; const t = n.querySelector('.g-state');
      if (t) t.textContent = state || '';
      n.classList.toggle('crashed', /killed/.test(state || '')); n.classList.toggle('ended', /exited/.test(state || ''));
    });
    l.queues.forEach((q, i) => {
      const n = svg.querySelector('[data-node="' + CSS.escape('q:' + q) + '"]'); if (!n || !s) return;
      const c = s.counts;
      const old = !!(c.readyBefore && c.readyBefore[i]); const r = n.querySelector('[data-count=ready]');
      r.textContent = 'ready ' + num(c.ready && c.ready[i]) + (old ? '*' : ''); r.classList.toggle('stale', old);
      n.querySelector('[data-count=unacked]').textContent = 'unacked ' + num(c.unacked && c.unacked[i]);
      n.querySelector('[data-count=held]').textContent = 'held ' + num(c.held && c.held[i]);
      // the policy lines the graph keeps for this queue: the policy of the step's sample
      const lines = n.querySelectorAll('[data-policy-line]'); if (!lines.length) return;
      const p = c.policy ? c.policy[i] : null;
      const shown = p === null || p === undefined ? ['policy –'] : p.length ? p : ['no policy'];
      lines.forEach((t, k) => { t.textContent = shown[k] || ''; t.classList.toggle('none', !(p && p.length)); });
      n.dataset.policy = p && p.length ? p[0] : ''; n.classList.toggle('has-policy', !!(p && p.length));
    });
    // a binding the broker did not list with the step's counts is drawn as not bound (its edge and its note lines)
    const bound = s && s.counts.bindings ? new Set(s.counts.bindings) : null;
    svg.querySelectorAll('path.g-binding').forEach((e) => e.classList.toggle('off', !!bound && !bound.has(e.dataset.from + '>' + e.dataset.to)));
    svg.querySelectorAll('text[data-binding]').forEach((t) => t.classList.toggle('off', !!bound && !bound.has(t.dataset.binding)));
    // a route a policy added is dimmed while the queue's sample shows it without one
    svg.querySelectorAll('[data-policy-of]').forEach((e) => {
      const p = s && s.counts.policy ? s.counts.policy[l.queues.indexOf(e.dataset.policyOf.slice(2))] : null;
      e.classList.toggle('off', !(p && p.some((x) => /^dead-letter-exchange /.test(x))));
    });
  }
  function drawPanel(s, l) {
    const n = l.steps.length;
    $('step-no').textContent = s ? 'Step ' + (st.step + 1) + ' / ' + n + ' · +' + fmt(s.rel) + (data.live && !st.ended ? (st.follow ? ' · live' : st.step > now(l) ? ' · after the pause' : ' · looking back') : '') : (data.live && !st.ended ? 'waiting for the run…' : 'no events');
    $('step-title').textContent = s ? s.title : '';
    $('step-desc').textContent = s ? (s.description || (s.checkpoint ? 'checkpoint ' + s.checkpoint : '')) : '';
    const c = s ? s.counts : null;
    $('counts').innerHTML = '<tr><th>queue</th><th>ready</th><th>unacked</th><th>held</th></tr>' + l.queues.map((q, i) =>
      '<tr data-queue="' + esc(q) + '"><td>' + esc(q).replace(/\./g, '.<wbr>') + '</td><td' + (c && c.readyBefore && c.readyBefore[i] ? ' class="stale">' + num(c.ready[i]) + '*' : '>' + num(c && c.ready && c.ready[i])) + '</td><td>' + num(c && c.unacked && c.unacked[i]) + '</td><td>' + num(c && c.held && c.held[i]) + '</td></tr>').join('');
    const at = (ms) => (ms === null ? 'no sample yet' : ms < 0 ? fmt(-ms) + ' before the first event' : '+' + fmt(ms));
    $('counts-basis').textContent = (c && c.basis ? 'at the pause (' + at(c.readyAt) + '): ' + c.basis : c && c.readyAt !== null ? 'the broker’s latest reading (' + at(c.readyAt) + '): ready, unacked and held of each queue from one answer' : '')
      + (c && c.readyBefore && c.readyBefore.some(Boolean) ? '. * read before a message last entered or left that queue: it may not count every token drawn there' : '');
    // the declared bindings the broker did not list at this step, in words
    const unbound = c && c.bindings ? [...document.querySelectorAll('svg.graph path.g-binding')].filter((e) => !c.bindings.includes(e.dataset.from + '>' + e.dataset.to)).map((e) => e.dataset.from.slice(2) + ' → ' + e.dataset.to.slice(2)) : [];
    $('bindings-now').hidden = unbound.length === 0;
    $('bindings-now').textContent = 'Not bound now: ' + [...new Set(unbound)].join(', ');
    // a message the pause's reading does not count where its events put it (steps.ts, broker-wins.ts): not drawn there
    $('gone-now').hidden = !(s && s.gone && s.gone.length);
    $('gone-now').textContent = s && s.gone ? 'By the broker’s reading: ' + s.gone.join('; ') : '';
    const tk = s ? s.tokens[s.token || s.messageId] : null;
    $('message-head').innerHTML = s && s.messageId ? 'Message ' + esc(tk ? tk.label : s.messageId) + (tk && tk.skipped ? ', skipped as a duplicate' : '') + ' <span class="basis">as its events said</span>' : 'Message';
    flow($('message'), s && s.message ? s.message : {}, moreFields);
    kv($('event'), s ? s.fields : {});
    $('business-from').textContent = s && s.business ? 'at ' + s.business.from : 'nothing reported yet';
    flow($('business'), s && s.business ? s.business.fields : {}, null);
    // only the pause the run waits on has a waiting token (steps.ts); events logged during it come after it
    const waiting = s && s.waiting && data.live && !st.ended;
    $('continue').hidden = !(waiting && st.key && st.sent !== s.waiting);
    // what the lab itself logged while the run waits on this pause (a watch that saw a policy cleared from
    // outside): its newest two events with their fields, the broker's readings among them
    const since = waiting ? l.steps.slice(st.step + 1).filter((x) => x.processes[x.lane] === 'in the lab').slice(-2) : [];
    $('since-pause').hidden = since.length === 0;
    $('since-pause').textContent = since.length ? 'Since the pause: ' + since.map((x) => x.title + ' (' + Object.entries(x.fields).map(([k, v]) => k + '=' + fieldText(v)).join(' ') + ')').join('; ') : '';
    $('viewer-note').hidden = !(waiting && !st.key);
    $('viewer-note').textContent = 'paused: the run is released from the terminal (Enter) or the page that holds control';
    $('scrub').max = String(Math.max(0, n - 1)); $('scrub').value = String(st.step); $('pos').textContent = (n ? st.step + 1 : 0) + ' / ' + n;
    $('play').textContent = st.playing ? '❚❚' : '▶';
  }
  function drawHeader(l) {
    $('lab-name').textContent = l.lab; $('lab-title').textContent = l.title;
    const v = $('verdict'); v.dataset.verdict = l.verdict; v.className = 'badge ' + l.verdict.toLowerCase();
    v.textContent = l.verdict === 'PASS' ? '✔ PASS' : l.verdict === 'FAIL' ? '✘ FAIL' : l.verdict === 'SKIP' ? '– SKIP' : '… running';
    $('lines').textContent = l.lines.join('\n'); $('lines').hidden = l.lines.length === 0;
    $('fault-banner').hidden = l.faults.length === 0; $('fault-names').textContent = l.faults.join(', ');
    $('labs-nav').innerHTML = st.labs.length > 1 ? st.labs.map((x, i) => '<button type="button" data-i="' + i + '" aria-current="' + (i === st.lab) + '">' + esc(x.lab) + ' ' + esc(x.verdict) + '</button>').join('') : '';
  }
  function drawCursor(s) {
    const svg = document.querySelector('svg.timeline'); if (!svg || !s) return;
    const t0 = Number(svg.dataset.t0), t1 = Number(svg.dataset.t1), x0 = Number(svg.dataset.x0), x1 = Number(svg.dataset.x1);
    const x = t1 > t0 ? x0 + ((s.t - t0) / (t1 - t0)) * (x1 - x0) : x0;
    let line = svg.querySelector('line.cursor');
    if (!line) { line = document.createElementNS('http://www.w3.org/2000/svg', 'line'); line.setAttribute('class', 'cursor'); svg.appendChild(line); }
    line.setAttribute('x1', x); line.setAttribute('x2', x); line.setAttribute('y1', 0); line.setAttribute('y2', svg.viewBox.baseVal.height);
  }
  // where a live run is: the pause it waits on (events other processes log during the pause come
  // after it: a publisher's confirms, a delivery), else its newest step
  function now(l) {
    const i = data.live && !st.ended ? l.steps.findLastIndex((s) => s.waiting) : -1;
    return i >= 0 ? i : Math.max(0, l.steps.length - 1);
  }
  let shown = null;
  function render() {
    const l = lab(); if (!l) return;
    if (st.follow) st.step = now(l);
    const s = l.steps[st.step];
    // a step or a few forward (→, play, a live run's next steps): the step's message moves along its route
    const forward = !!shown && shown.lab === st.lab && st.step > shown.step && st.step - shown.step <= 3;
    shown = { lab: st.lab, step: st.step };
    const head = document.querySelector('section.bench').getBoundingClientRect().top;
    drawHeader(l); drawGraph(l);
    if (document.querySelector('section.bench').getBoundingClientRect().top !== head) fit(); // the header changed height
    drawTokens(s, l, forward); drawPanel(s, l); drawCursor(s);
    if (s) writeHash();
  }
  function go(i) {
    const n = lab().steps.length; st.step = Math.min(Math.max(0, i), Math.max(0, n - 1));
    st.follow = data.live && !st.ended && st.step === now(lab()); render();
  }
  function stop() { clearTimeout(st.playing); st.playing = null; render(); }
  function play() {
    if (st.playing) return stop();
    const l = lab(); if (st.step >= l.steps.length - 1) st.step = 0;
    const tick = () => {
      const a = l.steps[st.step], b = l.steps[st.step + 1];
      if (!b) return stop();
      const speed = Number($('speed').value) || 1;
      st.playing = setTimeout(() => { go(st.step + 1); tick(); }, Math.min(2500, Math.max(350, (b.rel - a.rel) / speed)));
    };
    st.follow = false; st.playing = setTimeout(() => {}, 0); render(); tick();
  }
  async function release() {
    const s = lab().steps[st.step]; if (!s || !s.waiting || !st.key || st.sent === s.waiting) return;
    st.sent = s.waiting; render();
    const r = await fetch('/continue', { method: 'POST', headers: { 'content-type': 'application/json', 'x-mqlab-key': st.key }, body: JSON.stringify({ token: s.waiting }) }).catch(() => null);
    if (!r || !r.ok) { st.sent = null; render(); }
  }

  $('first').onclick = () => go(0); $('prev').onclick = () => go(st.step - 1); $('next').onclick = () => go(st.step + 1);
  $('play').onclick = play; $('continue').onclick = release; $('scrub').oninput = (e) => go(Number(e.target.value));
  $('labs-nav').onclick = (e) => { const b = e.target.closest('button'); if (!b) return; st.lab = Number(b.dataset.i); st.pinned = true; st.step = 0; st.follow = false; render(); };
  document.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLSelectElement || e.target instanceof HTMLInputElement) return;
    if (e.key === 'ArrowRight') go(st.step + 1);
    else if (e.key === 'ArrowLeft') go(st.step - 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(lab().steps.length - 1);
    else if (e.key === ' ') play();
    else if (e.key === 'Enter' && !$('continue').hidden) release();
    else return;
    e.preventDefault();
  });
  window.addEventListener('hashchange', () => { readHash(); render(); });

  if (data.live) {
    ${TOKEN_OUT_OF_ADDRESS}
    const src = new EventSource('/events');
    src.addEventListener('hello', (e) => { const m = JSON.parse(e.data); st.key = m.key; render(); });
    src.addEventListener('lab', (e) => {
      const m = JSON.parse(e.data); const i = st.labs.findIndex((x) => x.lab === m.lab.lab);
      if (i >= 0) st.labs[i] = m.lab; else st.labs.push(m.lab);
      if (!st.pinned) st.lab = i >= 0 ? i : st.labs.length - 1;
      if (st.labs[st.lab] === m.lab || st.labs[st.lab].lab === m.lab.lab) $('tail').innerHTML = m.tail;
      render();
    });
    src.addEventListener('end', () => { st.ended = true; src.close(); $('live-state').textContent = 'run ended: replay with ← → space'; render(); });
    src.onerror = () => { if (!st.ended) $('live-state').textContent = 'connection to mqlab lost'; };
  }
  readHash(); render();
})();
`;
