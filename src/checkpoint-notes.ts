/**
 * The one-line description of each checkpoint, for --step and the checkpoint view. A lab whose
 * metadata describes its checkpoints ({ name, description }) is read from there; otherwise from
 * its page's "## Checkpoints" list (`- \`name\` — what has just happened`, which test/docs.test.ts
 * keeps equal to the checkpoints the code calls). Markdown is reduced to plain text.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** the package root from src/ (tests) or dist/src/ (the CLI) */
const roots = [path.resolve(here, '..'), path.resolve(here, '..', '..')];

/** name → description from the metadata's checkpoints, when they are described there */
function fromMeta(checkpoints: readonly unknown[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of checkpoints) {
    const d = c as { name?: unknown; description?: unknown };
    if (typeof d?.name === 'string' && typeof d.description === 'string') out[d.name] = d.description;
  }
  return out;
}

/** name → description from a lab page's "## Checkpoints" section */
export function pageDescriptions(markdown: string): Record<string, string> {
  const section = markdown.split(/^## /m).find((s) => /^Checkpoints\s*\n/.test(s)) ?? '';
  const out: Record<string, string> = {};
  for (const m of section.matchAll(/^- `([^`]+)` — (.+)$/gm)) out[m[1]!] = plain(m[2]!);
  return out;
}

/** markdown of one line to plain text: `code` and [text](link) keep their text */
export const plain = (md: string) => md.replace(/\[([^\]]+)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');

const cache = new Map<string, Record<string, string>>();

export function checkpointDescriptions(lab: string, checkpoints: readonly unknown[] = []): Record<string, string> {
  const own = fromMeta(checkpoints);
  if (Object.keys(own).length) return own;
  let found = cache.get(lab);
  if (!found) {
    const file = roots.map((r) => path.join(r, 'docs', 'labs', `${lab}.md`)).find((f) => existsSync(f));
    found = file ? pageDescriptions(readFileSync(file, 'utf8')) : {};
    cache.set(lab, found);
  }
  return found;
}
