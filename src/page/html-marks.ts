/**
 * The --html timeline's marks: one shape per kind of event (shape and label carry the meaning,
 * colour only helps), and the legend that names them.
 */
import type { MarkKind } from './html-layout.js';

/** colour-blind-safe (Okabe–Ito) colours; every kind also has its own shape */
const KIND_COLOUR: Record<MarkKind, string> = {
  publish: '#56B4E9',
  confirm: '#0072B2',
  receive: '#009E73',
  settle: '#222222',
  retry: '#E69F00',
  dead: '#D55E00',
  checkpoint: '#CC79A7',
  crash: '#D55E00',
  exit: '#555555',
  other: '#888888',
};

const KIND_LABEL: Record<MarkKind, string> = {
  publish: 'published (sent by the client)',
  confirm: 'confirmed by the broker',
  receive: 'received (delivered)',
  settle: 'acked / committed / done',
  retry: 'retry: delayed copy or requeue',
  dead: 'rejected / dead-lettered',
  checkpoint: 'checkpoint',
  crash: 'crash (exit 137, SIGKILL)',
  exit: 'process exited',
  other: 'other event',
};

/** the SVG of a mark centred on (0, 0) */
export function shape(kind: MarkKind): string {
  const c = KIND_COLOUR[kind];
  switch (kind) {
    case 'publish':
      return `<path d="M-5,-6 L6,0 L-5,6 Z" fill="#fff" stroke="${c}" stroke-width="2"/>`;
    case 'confirm':
      return `<path d="M-5,-6 L6,0 L-5,6 Z" fill="${c}"/>`;
    case 'receive':
      return `<circle r="5" fill="${c}"/>`;
    case 'settle':
      return `<rect x="-4.5" y="-4.5" width="9" height="9" fill="${c}"/>`;
    case 'retry':
      return `<path d="M0,-6.5 L6.5,0 L0,6.5 L-6.5,0 Z" fill="${c}"/>`;
    case 'dead':
      return `<path d="M-5,-5 L5,5 M5,-5 L-5,5" stroke="${c}" stroke-width="3"/>`;
    case 'checkpoint':
      return `<path d="M-1,7 L-1,-7 L7,-4 L-1,-1" fill="${c}" stroke="${c}" stroke-width="1.5"/>`;
    case 'crash':
      return `<circle r="9" fill="#fff" stroke="${c}" stroke-width="2.5"/><path d="M-5,-5 L5,5 M5,-5 L-5,5" stroke="${c}" stroke-width="3"/>`;
    case 'exit':
      return `<circle r="5" fill="#fff" stroke="${c}" stroke-width="2"/><path d="M0,-5 L0,5" stroke="${c}" stroke-width="2"/>`;
    default:
      return `<circle r="3.5" fill="#fff" stroke="${c}" stroke-width="1.5"/>`;
  }
}

/** the legend as HTML: a small SVG per kind that occurs, with its name */
export function legend(kinds: Iterable<MarkKind>): string {
  const items = [...new Set(kinds)].map(
    (k) =>
      `<li><svg width="20" height="20" viewBox="-10 -10 20 20" aria-hidden="true">${shape(k)}</svg>${KIND_LABEL[k]}</li>`,
  );
  items.push(
    '<li><svg width="28" height="20" aria-hidden="true"><path d="M2,15 C12,15 16,5 26,5" fill="none" stroke="#555" stroke-width="1.5" stroke-dasharray="4 2"/></svg>one message’s journey (same messageId)</li>',
  );
  return `<ul class="legend">${items.join('')}</ul>`;
}

/** text for SVG/HTML: & < > " ' escaped */
export function esc(v: unknown): string {
  return String(v).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
