/**
 * The commander program: services (up, down, status), `list`, `all`, and one command per lab
 * of the registry the entry point hands in, with the lab's tools as its subcommands. Lab code and
 * the engine load only when a command runs. Lab and tool options are parsed here, once.
 */
import { Command, Option } from 'commander';
import { planLab, type Catalogue, type LabMeta, type LabTool, type PlannedLab, type Registry } from '../lab/lab.js';
import { loadConfig, type Config, type ConfigInput } from '../core/config.js';
import { VERSION } from '../core/version.js';
import type { RunFlags, RunOutcome, RunSignals } from './commands/run-labs.js';
import type { AuditFlags } from './commands/audit.js';
import type { ClassFlags } from './commands/class.js';
import type { CheckCommandFlags } from './commands/check.js';
import { addSpecOptions, givenOptions } from './cli-options.js';
import { integer, parseOptions } from '../core/options.js';
import { UsageError } from '../core/errors.js';
import { refuseUnknownLabs } from '../lab/fault.js';
import { COMMANDS, listText, PROGRAM_DESCRIPTION } from './top-help.js';
import { beginRun } from '../engine/early-start.js';
import { GROUP_NAMES } from '../check/group-names.js';
import { CHECK_DEFAULTS } from '../check/options.js';
import { LEFT_OUT } from '../engine/refusal.js';

/** commands that need no lab's meta: the catalogue's names and titles are enough (or nothing of a lab) */
const WITHOUT_METAS = new Set(['-h', '--help', '-V', '--version', 'list', 'up', 'down', 'audit', 'class', 'check']);

/**
 * The metas a command line needs: the one lab it names (`mqlab retry …`), none for the commands
 * above, else all of them (`all`, `status`, `help`). A lab's meta imports its checkpoints, variants,
 * names and options: loading all 23 was most of the start-up of every command.
 */
export async function labsFor(catalogue: Catalogue, args: readonly string[]): Promise<Registry> {
  const first = args[0];
  const named = catalogue.find((entry) => entry.name === first);
  if (named) return [await named.load()];
  if (first === undefined || WITHOUT_METAS.has(first)) return [];
  return Promise.all(catalogue.map((entry) => entry.load()));
}

/** the names `--backend` accepts (src/services/index.ts parses them; kept here so --help stays cheap) */
const BACKEND_NAMES = ['auto', 'docker', 'chroot', 'system', 'local'];

/** how a command ended: its exit code or the error that ended it, and a run's --junit file (RunOutcome) */
export type Outcome = RunOutcome;

/**
 * Parse the command line and run its command; resolves with how the command ended. Commander
 * ignores what an action returns, so each action hands its outcome to this call's own variable.
 * A usage error commander finds (an unknown flag, a missing value) rejects.
 */
export async function runCli(catalogue: Catalogue, argv: string[], signals: RunSignals): Promise<Outcome> {
  const registry = await labsFor(catalogue, argv.slice(2));
  let outcome: Outcome = { code: 0 };
  await buildProgram(catalogue, registry, signals, (o) => (outcome = o)).parseAsync(argv);
  return outcome;
}

function connectionOptions(cmd: Command): Command {
  return cmd
    .option('--amqp-url <url>', 'AMQP URL of the app user (env MQLAB_AMQP_URL)')
    .option('--pg-url <url>', 'PostgreSQL URL of the app user (env MQLAB_PG_URL)')
    .option(
      '--mgmt-url <url>',
      'management API URL of the admin user, for policies and statistics (env MQLAB_MGMT_URL)',
    );
}

const namespaceOption = (cmd: Command, description: string) =>
  cmd.option('--namespace <ns>', `${description} (env MQLAB_NAMESPACE)`);

function runOptions(cmd: Command): Command {
  return namespaceOption(
    connectionOptions(cmd),
    'prefix every queue, exchange, policy and table, so runs can share services',
  )
    .option('--json', 'print one JSON document (checks, facts, timings, events) instead of text')
    .option('--junit <file>', 'also write JUnit XML, one testcase per check')
    .option(
      '--html <path>',
      'also write the run as a self-contained HTML timeline (a lab: FILE; all: DIR with index.html)',
    )
    .option('-v, --verbose', 'print every event as a key=value line on stderr')
    .option('--step', 'pause at each checkpoint and show the queues (press Enter to go on)')
    .option(
      '--live',
      'serve the run as a live page on 127.0.0.1 (graph, counts, steps, Continue); its address, with the token that lets a page in, is printed on stderr',
    )
    .option('--port <n>', "the --live page's port (default 8420; 0: any free port)")
    .option('--live-viewers', 'also serve a view-only --live page and stream without the token (no Continue)')
    .option('--out <dir>', 'keep each process’s output in this directory')
    .option('--color', 'colour the text output even when it is not a terminal (CI logs); FORCE_COLOR=1 does the same')
    .option('--no-color', 'no colours (as NO_COLOR=1)')
    .option(
      '--no-wait',
      'when another run stops a service of this set (or holds it for one), exit 2 at once instead of waiting',
    )
    .option('--yes', 'on a set with a class (mqlab class): stop its services under the students without asking');
}

/** the teacher's run of a lab that stops services under a class: said, and asked (src/class/presence.ts) */
async function confirmStopping(plan: readonly PlannedLab[], config: Config, what: string, yes?: boolean) {
  if (!plan.some((p) => p.entry.disruptive)) return;
  const { confirmStopping } = await import('../class/presence.js');
  await confirmStopping(
    plan.map((p) => p.entry),
    config,
    what,
    Boolean(yes),
  );
}

const configFrom = (o: ConfigInput) =>
  loadConfig({ amqpUrl: o.amqpUrl, pgUrl: o.pgUrl, mgmtUrl: o.mgmtUrl, namespace: o.namespace });

/** `registry`: the metas labsFor loaded; every other lab of the catalogue is a command with its title only */
export function buildProgram(
  catalogue: Catalogue,
  registry: Registry,
  signals: RunSignals,
  ended: (outcome: Outcome) => void,
): Command {
  const labNames = catalogue.map((entry) => entry.name);
  const program = new Command('mqlab')
    .description(PROGRAM_DESCRIPTION)
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run `mqlab --help` for the commands)')
    .configureOutput({ outputError: (str, write) => write(str) })
    // one short line per command: `mqlab <command> --help` shows its options
    .configureHelp({ subcommandTerm: (cmd) => cmd.name() })
    // before any subcommand exists, so every command inherits it: usage errors reach main (exit 2)
    .exitOverride();

  program.commandsGroup('Services:');
  program
    .command('up')
    .description(COMMANDS.up)
    .addOption(
      new Option(
        '--backend <backend>',
        "docker (compose.yaml), chroot (a private Debian root of the line, as root), system (this machine's packages; local is its old name); auto: the one this data folder holds, else docker if a Docker engine answers, else chroot as root, else system",
      )
        .choices(BACKEND_NAMES)
        .default('auto'),
    )
    .addOption(
      new Option(
        '--line <line>',
        "the broker line: 4.3 (RabbitMQ 4.3 + PostgreSQL 18: Debian unstable in a private root, or Docker), 4.0 (RabbitMQ 4.0 + PostgreSQL 17: Debian 13 in a private root, as root), 3.10 (the system backend: Debian 12's packages); default: the one this data folder holds, else 4.3. A second line runs beside the first with its own MQLAB_HOME and MQLAB_PORT_OFFSET",
      ).env('MQLAB_LINE'),
    )
    .option(
      '--nodes <n>',
      'RabbitMQ nodes: 1, or 3 for a cluster (node i on the AMQP, management and distribution ports + 10 × (i-1); chroot and system backends); default: the running count, else 1',
    )
    .action(async (o: { backend: string; nodes?: string; line?: string }) => {
      const { upCommand } = await import('./commands/services.js');
      ended({ code: await upCommand(loadConfig(), o.backend, o.nodes, o.line) });
    });
  program
    .command('down')
    .description(COMMANDS.down)
    .option('--volumes', 'also delete all queues and tables (only what mqlab created in its data folder)')
    .addOption(
      new Option('--backend <backend>', 'which services (auto: the backend `up` used)')
        .choices(BACKEND_NAMES)
        .default('auto'),
    )
    .action(async (o: { backend: string; volumes?: boolean }) => {
      const { downCommand } = await import('./commands/services.js');
      ended({ code: await downCommand(loadConfig(), o.backend, Boolean(o.volumes)) });
    });
  namespaceOption(
    connectionOptions(program.command('status')),
    "show this namespace's queues only (and its quorum queues in the cluster part)",
  )
    .description(COMMANDS.status)
    .option('--json', 'print JSON')
    .option('--lab <labs>', "only these labs' queues (comma-separated, e.g. retry-dlq)")
    .option(
      '--watch [seconds]',
      'the queues again every 1–60 s (default 2), in place on a terminal; not a terminal or NO_COLOR: printed again, one block per interval, no escape codes; Ctrl-C stops (exit 0)',
    )
    .action(async (o: ConfigInput & { json?: boolean; lab?: string; watch?: string | true }) => {
      const { statusCommand, watchCommand } = await import('./commands/services.js');
      const labs = onlyLabs(registry, o.lab, '--lab');
      if (o.watch !== undefined) {
        if (o.json)
          throw new UsageError('--watch draws the status for people, --json prints it once', 'leave out one of them');
        const seconds = o.watch === true ? 2 : integer(1, 60)(String(o.watch), '--watch');
        ended({ code: await watchCommand(labs, configFrom(o), seconds, signals.signal) });
      } else ended({ code: await statusCommand(labs, configFrom(o), Boolean(o.json)) });
    });

  // the services' own tools: what follows the command is the tool's (its options too)
  for (const tool of ['ctl', 'psql'] as const)
    program
      .command(tool)
      .description(COMMANDS[tool])
      .argument('[args...]', `passed to ${tool === 'ctl' ? 'rabbitmqctl' : 'psql'} as they are`)
      .allowUnknownOption()
      .helpOption(false)
      .action(async (args: string[]) => {
        const { serviceToolCommand } = await import('./commands/service-tools.js');
        ended({ code: await serviceToolCommand(tool, loadConfig(), args) });
      });

  classCommands(program, signals, ended);

  program
    .command('audit [definitions]')
    .description(COMMANDS.audit)
    .option('--mgmt-url <url>', 'management API URL; a user with the monitoring tag is enough (env MQLAB_MGMT_URL)')
    .option('--vhost <vhost>', 'audit only this vhost (default: every vhost the user sees)')
    .option('--json', 'print one JSON document (docs/audit.schema.json) instead of text')
    .option('--junit <file>', 'also write JUnit XML, one testcase per check')
    .option('--fail-on <severity>', 'exit 1 when a finding is at or above: error, warning, info or never', 'error')
    .option('--timeout <seconds>', 'how long one management API request may take', '30')
    .option(
      '--target-version <x.y>',
      'judge for this RabbitMQ line, e.g. 4.3 before an upgrade (default: the version of the file or broker, else 4.3)',
    )
    .addHelpText(
      'after',
      '\nEach finding names the lab that shows the pitfall (see: mqlab <lab>) and the fix. Docs: docs/audit.md',
    )
    .action(async (file: string | undefined, o: AuditFlags) => {
      const { auditCommand } = await import('./commands/audit.js');
      ended({ code: await auditCommand(file, o, signals.signal) });
    });

  checkCommandOf(program, signals, ended);

  program.commandsGroup('Labs:');
  program
    .command('list')
    .description(COMMANDS.list)
    .action(() => void process.stdout.write(listText(catalogue)));
  runOptions(program.command('all'))
    .description(COMMANDS.all)
    .option(
      '-j, --jobs <n>',
      'run n labs at once, each in its own namespace (<namespace>_j1, … or j1, …); output stays in order',
      '1',
    )
    .option('--skip <labs>', 'leave these labs out (comma-separated, e.g. db-outage,broker-restart): each prints SKIP')
    .action(async (o: ConfigInput & Omit<RunFlags, 'jobs'> & { jobs: string; skip?: string }) => {
      refuseUnknownLabs(labNames);
      const jobs = integer(1, 32)(o.jobs, '--jobs');
      // every lab with its defaults, as if run alone without options
      const plan = leaveOut(registry, o.skip).map((entry) => planLab(entry));
      const config = configFrom(o);
      await confirmStopping(plan, config, 'mqlab all', o.yes);
      // the set's hold and the connections start now, and the engine's modules load meanwhile
      const start = beginRun({ plan, config, summary: true, wait: o.wait, signal: signals.signal }, jobs);
      const { runCommand } = await import('./commands/run-labs.js');
      ended(await runCommand({ plan, config, flags: { ...o, jobs }, summary: true, start }, signals));
    });
  for (const { name, title } of catalogue) {
    const meta = registry.find((entry) => entry.name === name);
    if (meta) labCommand(program, meta, signals, ended, labNames);
    else program.command(name).description(title); // shown in --help; never run (its meta was not loaded)
  }
  return program;
}

/** `mqlab check`: the labs' faults on the user's own consumer (src/check/, docs/check.md) */
function checkCommandOf(program: Command, signals: RunSignals, ended: (outcome: Outcome) => void): void {
  namespaceOption(
    program
      .command('check')
      .option(
        '--amqp-url <url>',
        'AMQP URL of the app user (env MQLAB_AMQP_URL): the consumer reaches it through a proxy',
      )
      .option('--pg-url <url>', 'PostgreSQL URL of the app user (env MQLAB_PG_URL): --effects runs there'),
    "prefix the check's queues (the consumer gets it as MQLAB_NAMESPACE)",
  )
    .description(COMMANDS.check)
    .option('--consumer <command>', 'the command that starts your consumer (run with sh -c, restarted when it exits)')
    .option(
      '--effects <sql>',
      "a query returning one row per business effect, the message id first (else: the consumer's `status=business_committed messageId=…` lines)",
    )
    .option('--cleanup <sql>', 'SQL run once after the check, e.g. to delete its effect rows (ids start with chk-)')
    .option('--only <groups>', `run only these check groups (comma-separated): ${GROUP_NAMES.join(', ')}`)
    .option('--seed <n>', 'the seed of the kill moments (default: a new one, printed)')
    .option('--settle <duration>', 'how long nothing may move before the check judges', CHECK_DEFAULTS.settle)
    .option(
      '--start-timeout <duration>',
      'how long a consumer may take to start consuming',
      CHECK_DEFAULTS.startTimeout,
    )
    .option(
      '--consumer-timeout <duration>',
      "the work queue's consumer timeout (consumer-timeout group)",
      CHECK_DEFAULTS.consumerTimeout,
    )
    .option(
      '--poison-deliveries <n>',
      'a poison message must be dead-lettered within this many deliveries',
      CHECK_DEFAULTS.poisonDeliveries,
    )
    .option('--json', 'print one JSON document (docs/check.schema.json) instead of text')
    .option('--junit <file>', 'also write JUnit XML, one testcase per check')
    .option('-v, --verbose', "print the consumer's output on stderr")
    .option('--color', 'colour the text output even when it is not a terminal')
    .option('--no-color', 'no colours (as NO_COLOR=1)')
    .addHelpText('after', CHECK_HELP)
    .action(async (o: CheckCommandFlags) => {
      const { checkCommand } = await import('./commands/check.js');
      ended({ code: await checkCommand(o, signals.signal) });
    });
}

const CHECK_HELP = `
Your consumer gets (docs/check.md has the whole contract, in a page):
  MQLAB_AMQP_URL   connect here (mqlab's proxy to the broker) and consume, manual ack
  MQLAB_QUEUE      the work queue; messages: message_id property + JSON body {"id", "seq"}
  MQLAB_DLQ        where the work queue dead-letters a reject/nack(requeue=false)
  MQLAB_PG_URL     your database (through mqlab's proxy)
Per message: commit the effect with a dedupe row keyed by the message id, then ack;
park what you cannot parse (reject, requeue=false); exit or reconnect when the broker
cancels you or closes the channel — mqlab restarts a consumer that exits.

Anomalies: lost, duplicated, stuck, poison-not-parked, unexpected (exit 1).
Example:
  mqlab check --consumer "python3 consumer.py" --effects "SELECT message_id FROM orders" --junit check.xml`;

/** the lab names a flag lists (`a,b`), each a lab of the registry; else a usage error showing `example` */
function labNames(registry: Registry, list: string, flag: string, example: string): string[] {
  const names = list
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !registry.some((l) => l.name === n));
  if (unknown.length || !names.length)
    throw new UsageError(
      `${flag} takes lab names, got '${unknown.join(',') || list}'`,
      `see \`mqlab list\` for the names, e.g. ${flag} ${example}`,
    );
  return names;
}

/** `status --lab a,b`: those labs of the registry (all of them without the flag) */
function onlyLabs(registry: Registry, list: string | undefined, flag: string): Registry {
  if (list === undefined) return registry;
  const names = labNames(registry, list, flag, 'retry-dlq');
  return registry.filter((l) => names.includes(l.name));
}

/** `all --skip a,b`: those labs stay in the run as SKIP (in the summary, --json and --junit), not run */
function leaveOut(registry: Registry, skip: string | undefined): readonly LabMeta[] {
  if (skip === undefined) return registry;
  const names = labNames(registry, skip, '--skip', 'db-outage,broker-restart');
  return registry.map((l) => (names.includes(l.name) ? { ...l, requires: () => Promise.resolve(LEFT_OUT) } : l));
}

function labCommand(
  program: Command,
  entry: LabMeta,
  signals: RunSignals,
  ended: (outcome: Outcome) => void,
  labNames: readonly string[],
) {
  const cmd = runOptions(program.command(entry.name)).description(entry.title);
  addSpecOptions(cmd, entry.options);
  cmd.addHelpText(
    'after',
    `\nWhat it proves:\n  ${wrap(entry.proves, 78).join('\n  ')}\n${variantsHelp(entry)}\nDocs: docs/labs/${entry.name}.md`,
  );
  cmd.option(
    '--predict <guesses>',
    'what you expect before the run, e.g. "transientAttempts=1,2,3 shortestRetryGapMs>=500" (a check or fact of the lab: =, >=, <=; or PASS/FAIL): held against the run, and shown on the class board',
  );
  cmd.option(
    '--names',
    "print the run's own queue, exchange, policy and table names (with --namespace) and exit without running",
  );
  cmd.action(async (o: ConfigInput & RunFlags & { names?: boolean } & Record<string, unknown>) => {
    refuseUnknownLabs(labNames);
    const planned = planLab(entry, givenOptions(entry.options, o));
    if (o.names) {
      const { runNames, renderNames } = await import('./commands/names.js');
      const config = configFrom(o);
      const n = await runNames(entry, config, planned.options);
      process.stdout.write(
        (o.json
          ? JSON.stringify({ lab: entry.name, ...n }, null, 2)
          : renderNames(entry.name, n, config.student).join('\n')) + '\n',
      );
      ended({ code: 0 });
      return;
    }
    const config = configFrom(o);
    await confirmStopping([planned], config, entry.name, o.yes);
    // the set's hold and the connections start now, and the engine's modules load meanwhile
    const start = beginRun({ plan: [planned], config, summary: false, wait: o.wait, signal: signals.signal });
    const { runCommand } = await import('./commands/run-labs.js');
    ended(await runCommand({ plan: [planned], config, flags: o, summary: false, start }, signals));
  });
  for (const tool of entry.tools ?? []) labToolCommand(cmd, entry, tool, ended);
}

/** `mqlab <lab> <tool>`: a subcommand of the lab's command (which still runs the lab on its own) */
function labToolCommand(labCmd: Command, entry: LabMeta, tool: LabTool, ended: (outcome: Outcome) => void) {
  const cmd = namespaceOption(
    connectionOptions(labCmd.command(tool.name)),
    'the namespace whose tables to use',
  ).description(tool.description);
  addSpecOptions(cmd, tool.options);
  cmd.action(async (_o, self: Command) => {
    // the lab's command also knows the connection flags and --namespace: wherever they were
    // written, they reach the tool through optsWithGlobals
    const o = self.optsWithGlobals();
    const { toolCommand } = await import('./commands/tool.js');
    ended({
      code: await toolCommand(entry, tool, configFrom(o), parseOptions(tool.options, givenOptions(tool.options, o))),
    });
  });
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** `mqlab class up|add|lines|reset|down|board`: a class of students on this set (src/class/) */
function classCommands(program: Command, signals: RunSignals, ended: (outcome: Outcome) => void): void {
  const cls = program
    .command('class')
    .description(COMMANDS.class)
    .addHelpText(
      'after',
      '\nEach student gets a RabbitMQ user with a vhost of their own, a PostgreSQL role with a schema of its own,\nand one line to paste. Docs: docs/workshop.md',
    );
  const limits = (cmd: Command) =>
    cmd
      .option('--max-queues <n>', 'queues each student may have in their vhost (default 250)')
      .option('--max-connections <n>', 'connections each student may open, to RabbitMQ and to PostgreSQL (default 40)')
      .option(
        '--json',
        'print the class as one JSON document: per student name, namespace, vhost, schema, URLs and line',
      );
  const load = () => import('./commands/class.js');
  limits(cls.command('up'))
    .description("make (or complete) a class of N students, s1 … sN, and print each one's line")
    .requiredOption('--students <n>', 'how many students (1-200)')
    .action(async (o: ClassFlags & { students: string }) => {
      ended({ code: await (await load()).classUpCommand(loadConfig(), o.students, o) });
    });
  limits(cls.command('add <names...>'))
    .description('add students by name (a lowercase letter, then letters, digits or _) and print their lines')
    .action(async (names: string[], o: ClassFlags) => {
      ended({ code: await (await load()).classAddCommand(loadConfig(), names, o) });
    });
  cls
    .command('lines [names...]')
    .description("print the students' lines again (all of them, or these)")
    .option('--json', 'print them as one JSON document')
    .action(async (names: string[], o: { json?: boolean }) => {
      ended({ code: (await load()).classLinesCommand(loadConfig(), names, o) });
    });
  cls
    .command('reset <name>')
    .description("empty one student's vhost and schema (queues, exchanges, policies, tables, rows); nobody else's")
    .option('--runs', "also delete the student's rows on the board")
    .action(async (name: string, o: { runs?: boolean }) => {
      ended({ code: await (await load()).classResetCommand(loadConfig(), name, Boolean(o.runs)) });
    });
  cls
    .command('board')
    .description("the students' runs live, as they write them: lab, verdict, failed checks, time, prediction")
    .option('--port <n>', 'the port on 127.0.0.1 (default 8430; 0: any free port)')
    .option('--viewers', 'also serve a view-only page without the token (to project)')
    .action(async (o: { port?: string; viewers?: boolean }) => {
      ended({ code: await (await load()).classBoardCommand(loadConfig(), o, signals.signal) });
    });
  cls
    .command('down')
    .description('remove every student: RabbitMQ users and vhosts, PostgreSQL roles and schemas, the board')
    .action(async () => {
      ended({ code: await (await load()).classDownCommand(loadConfig()) });
    });
}

/**
 * a lab's broken variants for its --help: a teaching tool as much as a test one (run one, predict
 * which checks FAIL); '' for a lab without any
 */
export function variantsHelp(entry: Pick<LabMeta, 'name' | 'faults'>): string {
  const faults = Object.entries(entry.faults as Record<string, { breaks: string }>);
  if (!faults.length) return '';
  const w = Math.max(...faults.map(([n]) => n.length));
  return [
    '',
    'Broken variants (in class: predict which checks FAIL, then run one):',
    `  MQLAB_FAULT=${entry.name}:<variant> mqlab ${entry.name}`,
    ...faults.flatMap(([name, f]) => wrap(f.breaks, 76 - w).map((l, i) => `  ${(i ? '' : name).padEnd(w)}  ${l}`)),
    '',
  ].join('\n');
}
