/**
 * A small, correct XML 1.0 writer: escapes markup, drops the characters XML 1.0 forbids
 * (C0 controls other than tab/newline/CR — an ANSI colour's \x1b —, lone surrogates, U+FFFE/U+FFFF),
 * keeps newlines in element text and encodes them in attributes (a parser would flatten a raw one).
 */

// everything outside Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
const FORBIDDEN = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
// ANSI escape sequences (colours, cursor moves): removed whole, not just their ESC
// eslint-disable-next-line no-control-regex -- ESC is exactly what this pattern must match
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

export function xmlChars(s: string): string {
  return s.replace(ANSI, '').replace(FORBIDDEN, '');
}

export function xmlText(s: string): string {
  return xmlChars(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function xmlAttr(s: string): string {
  return xmlText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

type Attrs = Record<string, string | number | undefined>;

/** an element: attributes in the given order (undefined ones left out), children already written */
export function element(name: string, attrs: Attrs, children: string[] | string = []): string {
  const a = Object.entries(attrs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`)
    .join('');
  // child elements one per line (whitespace between elements is insignificant); text kept as is
  const body = typeof children === 'string' ? xmlText(children) : children.length ? `\n${children.join('\n')}\n` : '';
  return body === '' ? `<${name}${a}/>` : `<${name}${a}>${body}</${name}>`;
}

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';
