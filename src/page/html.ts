/**
 * --html: one self-contained page per lab (inline CSS, SVG and script; nothing loaded at view time),
 * drawn from the --json document (one source of truth), never from the text output.
 * `mqlab all --html DIR` also writes DIR/index.html linking every lab's page with its verdict.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { JsonDocument, JsonLab } from '../report/json.js';
import { formatExpected, formatValue, type Check } from '../report/checks.js';
import { domain, timelineSvg, type TimelineInput } from './html-timeline.js';
import { depthKeys } from './html-depths.js';
import { eventTime, formatMs, laneKey, type TimelineEvent } from './html-layout.js';
import { esc, legend } from './html-marks.js';
import { CSS, SCRIPT } from './html-style.js';
import { UsageError } from '../core/errors.js';
import { unwritable, writeUserFile } from '../report/out-files.js';
import { must } from '../core/must.js';
import { benchHtml, benchLab, type BenchLab } from './page.js';
import { BENCH_CSS } from './page-style.js';
import { BENCH_SCRIPT } from './page-script.js';
import { text } from '../core/text.js';

type Verdict = 'PASS' | 'FAIL' | 'SKIP';

export function verdict(status: string): Verdict {
  return status === 'passed' ? 'PASS' : status === 'skipped' ? 'SKIP' : 'FAIL';
}

export const badge = (v: Verdict) =>
  `<span class="badge ${v.toLowerCase()}" data-verdict="${v}">${v === 'PASS' ? '✔' : v === 'FAIL' ? '✘' : '–'} ${v}</span>`;

export function page(title: string, body: string): string {
  const bench = body.includes('id="bench-data"') ? `<script>${BENCH_SCRIPT}</script>` : '';
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${esc(title)}</title><style>${CSS}${BENCH_CSS}</style></head>\n<body>\n${body}\n<div id="tip" role="tooltip"></div><script>${SCRIPT}</script>${bench}\n</body></html>\n`
  );
}

export function runMeta(doc: JsonDocument): string {
  return `RabbitMQ ${esc(doc.broker.version)}${doc.postgres === null ? '' : ` · ${esc(doc.postgres)}`}${doc.namespace ? ` · namespace ${esc(doc.namespace)}` : ''}`;
}

/** what a lab page needs beyond the --json document: the checkpoints' descriptions, from the lab's metadata */
export interface PageExtras {
  descriptions?: Record<string, string>;
}

/** the recorded lab as the bench sees it */
export function benchOf(lab: JsonLab, extras: PageExtras = {}): BenchLab {
  return benchLab({
    lab: lab.lab,
    title: lab.title,
    verdict: verdict(lab.status),
    faults: 'faults' in lab ? lab.faults : [],
    lines: lab.lines,
    events: lab.events as unknown as TimelineEvent[],
    depths: lab.depths,
    topology: ('topology' in lab ? lab.topology : null) ?? null,
    descriptions: extras.descriptions ?? {},
  });
}

/** the page's header: the lab, its verdict, the summary line (the script keeps them current) */
export function labHeader(
  lab: string,
  title: string,
  v: Verdict | 'RUNNING',
  meta: string,
  lines: string[],
  live: boolean,
): string {
  const b =
    v === 'RUNNING'
      ? `<span class="badge" id="verdict" data-verdict="RUNNING">… running</span>`
      : badge(v).replace('<span ', '<span id="verdict" ');
  return (
    `<header class="top"><h1><span id="lab-name">${esc(lab)}</span> ${b}</h1>${live ? '<span class="live-state" id="live-state">live</span>' : '<span id="live-state" hidden></span>'}<span class="lab-title" id="lab-title">${esc(title)}</span></header>` +
    `<p class="meta">${meta}</p><pre class="lines" id="lines"${lines.length ? '' : ' hidden'}>${esc(lines.join('\n'))}</pre>`
  );
}

/** below the bench: the timeline with its lanes and depth charts, the checks, every event as a row */
export function labTail(input: TimelineInput, checks: JsonLab['checks'], note = ''): string {
  const { svg, kinds } = timelineSvg(input);
  const rows = checks.map((c) => {
    const r = c.pass ? 'PASS' : 'FAIL';
    return (
      `<tr class="${r.toLowerCase()}" data-check="${esc(c.name)}"><td>${badge(r)}</td><td>${esc(c.name)}</td>` +
      `<td>${esc(formatExpected(c))}</td><td>${esc(formatValue(c.actual))}</td></tr>`
    );
  });
  return `<h2>Timeline</h2>
<p class="note">One lane per process; time runs left to right from the first thing the run saw, each event at its own timestamp. Hover a mark for its key=value fields; its message’s journey lights up.</p>
${input.events.length ? '' : '<p class="note">This run recorded no events (yet).</p>'}${legend(kinds)}
${svg}
${depthKeys(input.depths)}
${eventTable(input.events, domain(input)[0])}
${
  checks.length
    ? `<h2>Checks</h2>
<table class="checks"><thead><tr><th>result</th><th>check</th><th>expected</th><th>actual</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
    : ''
}${note}`;
}

export function labPage(doc: JsonDocument, lab: JsonLab, extras: PageExtras = {}): string {
  const v = verdict(lab.status);
  const events = lab.events as unknown as TimelineEvent[];
  const failed = lab.checks.filter((c) => !c.pass).length;
  const why = 'skipped' in lab && lab.skipped ? `<p><strong>Skipped:</strong> ${esc(lab.skipped)}</p>` : '';
  const error =
    'error' in lab && lab.error
      ? `<p><strong>The experiment did not complete:</strong> ${esc(text(lab.error).split('\n')[0])}</p>`
      : '';
  const meta = `${runMeta(doc)} · run ${(lab.timings.runMs / 1000).toFixed(2)} s (setup ${lab.timings.setupMs} ms) · ${lab.events.length} events · ${lab.checks.length} checks, ${failed} failed`;
  const body = `${labHeader(lab.lab, lab.title, v, meta, lab.lines, false)}
${failedBox(lab)}${why}${error}
${benchHtml([benchOf(lab, extras)], false)}
<div id="tail">${labTail({ events, window: lab.window, depths: lab.depths }, lab.checks, '<p class="note">Drawn from the same report data as <code>--json</code>.</p>')}</div>`;
  return page(`mqlab ${lab.lab}: ${v}`, body);
}

/** every event as a row (collapsed): for the crowded parts of the timeline, and for reading aloud */
function eventTable(events: TimelineEvent[], t0: number): string {
  if (events.length === 0) return '';
  const skip = new Set(['source', 'process', 'timestamp', 'line', 'lab', 'level', 'service', 'product']);
  const rows = events.map((e, i) => {
    const fields = Object.entries(e)
      .filter(([k, v]) => !skip.has(k) && v !== undefined)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    const t = Number.isFinite(eventTime(e)) ? `+${formatMs(eventTime(e) - t0)}` : '';
    return `<tr data-i="${i}"><td>${t}</td><td>${esc(laneKey(e))}</td><td>${esc(e.source)}</td><td>${esc(fields)}</td></tr>`;
  });
  return (
    `<details class="events"><summary>All ${events.length} events as a table</summary>` +
    `<table class="events"><thead><tr><th>time</th><th>lane</th><th>source</th><th>fields</th></tr></thead><tbody>${rows.join('')}</tbody></table></details>`
  );
}

/** the failed checks, at the top where they are seen first */
function failedBox(lab: JsonLab): string {
  const failed = lab.checks.filter((c) => !c.pass);
  if (failed.length === 0) return '';
  const items = failed.map(
    (c) =>
      `<li><strong>FAIL ${esc(c.name)}</strong>: expected=${esc(formatExpected(c as Check))} actual=${esc(formatValue(c.actual))}</li>`,
  );
  return `<div class="failed" role="alert"><ul>${items.join('')}</ul></div>`;
}

export function indexPage(doc: JsonDocument, href: (lab: string) => string): string {
  const rows = doc.labs.map((l) => {
    const passed = l.checks.filter((c) => c.pass).length;
    return (
      `<tr class="${verdict(l.status).toLowerCase()}" data-lab="${esc(l.lab)}"><td>${badge(verdict(l.status))}</td><td><a href="${esc(href(l.lab))}">${esc(l.lab)}</a></td>` +
      `<td>${esc(l.title)}</td><td>${passed}/${l.checks.length}</td><td>${(l.timings.totalMs / 1000).toFixed(2)} s</td></tr>`
    );
  });
  const failed = doc.labs.filter((l) => verdict(l.status) === 'FAIL').length;
  const body = `<h1>mqlab all ${badge(failed ? 'FAIL' : 'PASS')}</h1><p class="meta">${runMeta(doc)} · ${doc.labs.length} labs, ${failed} failed</p>
<table class="labs"><thead><tr><th>result</th><th>lab</th><th>what it shows</th><th>checks passed</th><th>time</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  return page(`mqlab all: ${failed ? 'FAIL' : 'PASS'}`, body);
}

/** checked before the labs run: --html names a file for one lab, a directory for `mqlab all` */
export function checkHtmlTarget(target: string, several: boolean): void {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!several && stat?.isDirectory()) {
    throw new UsageError(
      `--html ${target} is a directory; one lab writes one file`,
      `give a file name, e.g. --html ${path.join(target, 'run.html')}`,
    );
  }
  if (several && stat && !stat.isDirectory()) {
    throw new UsageError(
      `--html ${target} is a file; \`mqlab all\` writes a page per lab into a directory`,
      'give a directory, e.g. --html out/',
    );
  }
  // before the run, not after it: a page that cannot be written there is refused now
  let problem: string | null;
  try {
    fs.mkdirSync(several ? target : path.dirname(path.resolve(target)), { recursive: true });
    problem = unwritable(several ? path.join(target, 'index.html') : target);
  } catch (err) {
    problem = (err as NodeJS.ErrnoException).code ?? String(err);
  }
  if (problem)
    throw new UsageError(
      `--html ${target}: cannot write ${several ? 'pages' : 'the page'} there (${problem})`,
      `give a ${several ? 'directory' : 'file path'} you can write to`,
    );
}

/** one lab: FILE; several (`mqlab all`): DIR/<lab>.html and DIR/index.html. Returns the files written. */
export function writeHtml(
  target: string,
  doc: JsonDocument,
  several: boolean,
  extras: (lab: string) => PageExtras = () => ({}),
): string[] {
  if (!several) {
    fs.mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
    const lab = must(doc.labs[0], 'the lab of the report');
    writeUserFile(target, labPage(doc, lab, extras(lab.lab)));
    return [target];
  }
  fs.mkdirSync(target, { recursive: true });
  const files = doc.labs.map((l) => {
    const file = path.join(target, `${l.lab}.html`);
    writeUserFile(file, labPage(doc, l, extras(l.lab)));
    return file;
  });
  const index = path.join(target, 'index.html');
  writeUserFile(
    index,
    indexPage(doc, (lab) => `${lab}.html`),
  );
  return [index, ...files];
}
