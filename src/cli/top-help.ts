/**
 * `mqlab --help` and `mqlab list` without commander: they print what the catalogue already holds,
 * so loading commander (and the CLI's own modules) for them was most of their start-up. The text is
 * commander's layout, line for line (src/cli/top-help.test.ts holds it against commander's own rendering
 * of the program src/cli/cli.ts builds, at several widths); the command descriptions live here, and
 * cli.ts registers the commands with them.
 */
import type { Catalogue } from '../lab/lab.js';
import { VERSION } from '../core/version.js';

export const PROGRAM_DESCRIPTION =
  'RabbitMQ + PostgreSQL reliability labs, run against real services and proven with assertions.\n' +
  'Start with `mqlab up`, then run a lab (`mqlab retry`) or all of them (`mqlab all`).';

/** the commands that are not labs, in --help's order, by group */
export const COMMANDS = {
  up: 'start RabbitMQ and PostgreSQL and provision them (idempotent)',
  down: 'stop the services (data is kept; --volumes deletes it)',
  status: 'show URLs, reachability, versions, capabilities and the lab queues',
  class: 'a class on this set: a login, a vhost and a schema per student; their lines, a board, a reset',
  audit: "look for the labs' pitfalls on a broker, read-only: its management API (GET only) or a definitions export",
  check: "turn the labs' faults on your own consumer (crash, duplicate, poison, timeout, restart, outage)",
  ctl: 'rabbitmqctl on the node `mqlab up` started (its cookie and ports), e.g. mqlab ctl list_queues -p lab',
  psql: "psql on the labs' database with the run's URL and account, e.g. mqlab psql -c 'SELECT 1'",
  list: 'list every lab with what it shows',
  all: 'run every lab in order and print a summary table',
} as const;

const SERVICES = ['up', 'down', 'status', 'ctl', 'psql', 'class', 'audit', 'check'] as const;
const LABS = ['list', 'all'] as const;
const HELP = 'display help for command';

/**
 * What `mqlab --help`, `-h`, `list`, `-V` or `--version` alone print (as commander would, at
 * `width` columns); null for every other command line, which goes to commander.
 */
export function quickOutput(catalogue: Catalogue, args: readonly string[], width: number | undefined): string | null {
  if (args.length !== 1) return null;
  const [arg] = args;
  if (arg === '--help' || arg === '-h') return topHelp(catalogue, width ?? 80);
  if (arg === 'list') return listText(catalogue);
  if (arg === '-V' || arg === '--version') return `${VERSION}\n`;
  return null;
}

/** the lines of `mqlab list` */
export function listText(catalogue: Catalogue): string {
  const w = Math.max(...catalogue.map((l) => l.name.length));
  return catalogue.map((l) => `${l.name.padEnd(w)}  ${l.title}\n`).join('');
}

/** `mqlab --help` at `width` columns (commander's: the terminal's width, else 80) */
export function topHelp(catalogue: Catalogue, width = 80): string {
  const options: [string, string][] = [
    ['-V, --version', 'output the version number'],
    ['-h, --help', HELP],
  ];
  const services = SERVICES.map((n): [string, string] => [n, COMMANDS[n]]);
  const labs = [
    ...LABS.map((n): [string, string] => [n, COMMANDS[n]]),
    ...catalogue.map((l): [string, string] => [l.name, l.title]),
  ];
  const commands: [string, string][] = [['help', HELP]];
  const termWidth = Math.max(...[...options, ...services, ...labs, ...commands].map(([t]) => t.length));
  const group = (title: string, items: [string, string][]) => [
    title,
    ...items.map(([t, d]) => item(t, d, termWidth, width)),
    '',
  ];
  return [
    'Usage: mqlab [options] [command]',
    '',
    boxWrap(PROGRAM_DESCRIPTION, width),
    '',
    ...group('Options:', options),
    ...group('Services:', services),
    ...group('Labs:', labs),
    ...group('Commands:', commands),
  ].join('\n');
}

/** commander's minWidthToWrap */
const MIN_WRAP = 40;

/** commander's Help.formatItem: the term padded, the description wrapped beside it */
function item(term: string, description: string, termWidth: number, width: number): string {
  const remaining = width - termWidth - 4;
  const wrapped =
    remaining < MIN_WRAP
      ? description
      : boxWrap(description, remaining).replace(/\n/g, '\n' + ' '.repeat(termWidth + 2));
  return `  ${term.padEnd(termWidth)}  ${wrapped.replace(/\n/g, '\n  ')}`;
}

/** commander's Help.boxWrap: wrap at whitespace, keep the text's own line breaks */
function boxWrap(text: string, width: number): string {
  if (width < MIN_WRAP) return text;
  const out: string[] = [];
  for (const line of text.split(/\r\n|\n/)) {
    const chunks = line.match(/\s*\S+/g);
    if (!chunks) {
      out.push('');
      continue;
    }
    let current = chunks.shift() ?? '';
    for (const chunk of chunks) {
      if (current.length + chunk.length <= width) current += chunk;
      else {
        out.push(current);
        current = chunk.trimStart();
      }
    }
    out.push(current);
  }
  return out.join('\n');
}
