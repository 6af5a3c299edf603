/**
 * `npm run docs`: each lab's page (docs/labs/<lab>.md) gets its "Broken variants (tests only)"
 * section from the lab's catalogue (labs/<lab>/faults.ts: name, what it breaks, the checks that must
 * print FAIL), so the page can never list a variant the lab does not have or miss one it has.
 * scripts/lab-pages.test.ts fails when a page is out of step (and says to run this).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LabMeta } from '../src/lab/lab.js';

const BEGIN =
  '<!-- broken variants: generated from the lab’s faults.ts by `npm run docs`; edit the catalogue, not this section -->';
const END = '<!-- end of the generated section -->';
const HEADING = '## Broken variants (tests only)';

type AnyMeta = Pick<LabMeta, 'name' | 'faults' | 'disruptive'>;

/** the test file that runs the lab's variants (a cluster lab's runs in the cluster suite) */
export function faultTestFile(root: string, lab: string): string {
  const names = [`${lab}.faults.int.test.ts`, `${lab}.faults.cluster.int.test.ts`];
  const found = names.find((f) => fs.existsSync(path.join(root, 'labs', lab, f))) ?? names[0]!;
  return `labs/${lab}/${found}`;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** the generated section for one lab: heading, markers, an introduction and one row per variant */
export function variantsSection(meta: AnyMeta, testFile: string): string {
  const rows = Object.entries(meta.faults).map(
    ([name, f]) => `| \`${name}\` | ${cell(f.breaks)} | ${f.fails.map((c) => `\`${c}\``).join(', ')} |`,
  );
  return [
    HEADING,
    '',
    BEGIN,
    '',
    `Each variant breaks the lab on purpose: \`MQLAB_FAULT=${meta.name}:<variant>\` (several: comma-separated), for`,
    `tests only — a run with one says so on its second line and in every report. \`${testFile}\` runs`,
    'each and asserts a `FAIL` line for every check in its row, so each check the lab prints is shown failing.',
    '',
    '| variant | what it breaks | checks that print FAIL |',
    '| --- | --- | --- |',
    ...rows,
    '',
    END,
  ].join('\n');
}

/** the page with its section in step: replaced between the markers, else after the Checkpoints section */
export function syncPage(page: string, section: string): string {
  const begin = page.indexOf(BEGIN);
  if (begin >= 0) {
    const start = page.lastIndexOf(HEADING, begin);
    const end = page.indexOf(END, begin);
    if (start < 0 || end < 0) throw new Error(`the generated section's heading or end marker is missing`);
    return page.slice(0, start) + section + page.slice(end + END.length);
  }
  const lines = page.split('\n');
  const checkpoints = lines.findIndex((l) => l === '## Checkpoints');
  const next = lines.findIndex((l, i) => i > checkpoints && l.startsWith('## '));
  const at = checkpoints >= 0 && next >= 0 ? next : lines.length;
  const before = lines.slice(0, at).join('\n').replace(/\n*$/, '\n\n');
  const after = lines.slice(at).join('\n');
  return before + section + (after ? '\n\n' + after : '\n');
}

/** the names a page's "## Checkpoints" section lists (each as a `name` at the start of a list item) */
export function checkpointsListed(page: string): string[] {
  const lines = page.split('\n');
  const start = lines.findIndex((l) => l === '## Checkpoints');
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  return lines.slice(start + 1, end < 0 ? undefined : end).flatMap((l) => /^[-*] `([a-z0-9-]+)`/.exec(l)?.[1] ?? []);
}

async function main() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const { registry } = await import('../labs/registry.js');
  let changed = 0;
  for (const meta of registry) {
    const file = path.join(root, 'docs', 'labs', `${meta.name}.md`);
    const page = fs.readFileSync(file, 'utf8');
    const next = syncPage(page, variantsSection(meta, faultTestFile(root, meta.name)));
    if (next !== page) {
      fs.writeFileSync(file, next);
      changed++;
      process.stdout.write(`docs: ${path.relative(root, file)}: broken variants written\n`);
    }
  }
  process.stdout.write(`docs: ${registry.length} lab pages, ${changed} changed\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
