/**
 * The commands of the lab pages' "Try this" sections, as printed (issue 46): every inline code span
 * that is an `mqlab …` command line (with any `MQLAB_…=…` before it) or a whole SQL statement (typed
 * into `mqlab psql`), in page order.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface PrintedCommand {
  page: string;
  kind: 'mqlab' | 'sql';
  text: string;
}

const COMMAND = /^(MQLAB_[A-Z_]+=\S+ )*mqlab( |$)/;
const SQL = /^(SELECT|UPDATE|DELETE|INSERT|BEGIN)\s+\S/;

/** the "## Try this" section of a page, '' when it has none */
export function tryThisSection(markdown: string): string {
  return /^## Try this\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(markdown)?.[1] ?? '';
}

/** the commands a section prints, in order; a span wrapped across lines is one line, as rendered */
export function printedCommands(page: string, section: string): PrintedCommand[] {
  return [...section.matchAll(/`([^`]+)`/g)].flatMap((m): PrintedCommand[] => {
    const text = (m[1] ?? '').replace(/\n\s*/g, ' ');
    if (COMMAND.test(text)) return [{ page, kind: 'mqlab', text }];
    if (SQL.test(text)) return [{ page, kind: 'sql', text }];
    return [];
  });
}

/** every page's printed commands, by page (docs/labs/<lab>.md) */
export function pagesCommands(root: string): Map<string, PrintedCommand[]> {
  const dir = path.join(root, 'docs', 'labs');
  const out = new Map<string, PrintedCommand[]>();
  for (const f of fs.readdirSync(dir).sort()) {
    if (!f.endsWith('.md')) continue;
    const page = f.slice(0, -3);
    const cmds = printedCommands(page, tryThisSection(fs.readFileSync(path.join(dir, f), 'utf8')));
    if (cmds.length) out.set(page, cmds);
  }
  return out;
}
