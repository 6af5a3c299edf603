/**
 * The commander program: services (up, down, status), `list`, `all`, and one command per lab
 * from the registry, with the lab's tools as its subcommands. Lab code and the engine load only
 * when a command runs.
 */
import { Command, Option } from 'commander';
import { registry } from '../labs/registry.js';
import type { LabEntry, LabOption, LabTool } from './lab.js';
import { loadConfig, type ConfigInput } from './config.js';
import { optionValues } from './lab-options.js';

/** the names `--backend` accepts (src/services/index.ts parses them; kept here so --help stays cheap) */
const BACKEND_NAMES = ['auto', 'docker', 'chroot', 'system', 'local'];

export interface CliState {
  code: number;
  signal: AbortSignal;
}

function connectionOptions(cmd: Command): Command {
  return cmd
    .option('--amqp-url <url>', 'AMQP URL of the app user (env MQLAB_AMQP_URL)')
    .option('--pg-url <url>', 'PostgreSQL URL of the app user (env MQLAB_PG_URL)')
    .option('--mgmt-url <url>', 'management API URL of the admin user, for policies and statistics (env MQLAB_MGMT_URL)');
}

function runOptions(cmd: Command): Command {
  return connectionOptions(cmd)
    .option('--namespace <ns>', 'prefix every queue, exchange, policy and table, so runs can share services (env MQLAB_NAMESPACE)')
    .option('--json', 'print one JSON document (checks, facts, timings, events) instead of text')
    .option('--junit <file>', 'also write JUnit XML, one testcase per check')
    .option('-v, --verbose', 'print every event as a key=value line on stderr')
    .option('--step', 'pause at each checkpoint and show the queues (press Enter to go on)')
    .option('--out <dir>', 'keep each process’s output in this directory');
}

const configFrom = (o: ConfigInput) => loadConfig({ amqpUrl: o.amqpUrl, pgUrl: o.pgUrl, mgmtUrl: o.mgmtUrl, namespace: o.namespace });

export function buildProgram(state: CliState): Command {
  const program = new Command('mqlab')
    .description('RabbitMQ + PostgreSQL reliability labs, run against real services and proven with assertions.\n' +
      'Start with `mqlab up`, then run a lab (`mqlab retry`) or all of them (`mqlab all`).')
    .version(process.env.npm_package_version ?? '0.1.0', '-V, --version')
    .showHelpAfterError('(run `mqlab --help` for the commands)')
    .configureOutput({ outputError: (str, write) => write(str) })
    // one short line per command: `mqlab <command> --help` shows its options
    .configureHelp({ subcommandTerm: (cmd) => cmd.name() })
    // before any subcommand exists, so every command inherits it: usage errors reach main (exit 2)
    .exitOverride();

  program.commandsGroup('Services:');
  program
    .command('up')
    .description('start RabbitMQ and PostgreSQL and provision them (idempotent)')
    .addOption(
      new Option('--backend <backend>', 'docker (compose.yaml), chroot (RabbitMQ 4.3 + PostgreSQL 18 in a private Debian root, as root), system (this machine\'s packages; local is its old name); auto: docker if a Docker engine answers, else chroot as root, else system')
        .choices(BACKEND_NAMES)
        .default('auto'),
    )
    .action(async (o) => {
      const { upCommand } = await import('./commands/services.js');
      state.code = await upCommand(loadConfig(), o.backend);
    });
  program
    .command('down')
    .description('stop the services (data is kept; --volumes deletes it)')
    .option('--volumes', "also delete all queues and tables (only what mqlab created in its data folder)")
    .addOption(new Option('--backend <backend>', 'which services (auto: the backend `up` used)').choices(BACKEND_NAMES).default('auto'))
    .action(async (o) => {
      const { downCommand } = await import('./commands/services.js');
      state.code = await downCommand(loadConfig(), o.backend, Boolean(o.volumes));
    });
  connectionOptions(program.command('status'))
    .description('show URLs, reachability, versions, capabilities and the lab queues')
    .option('--namespace <ns>', 'show the queues of this namespace')
    .option('--json', 'print JSON')
    .action(async (o) => {
      const { statusCommand } = await import('./commands/services.js');
      state.code = await statusCommand(configFrom(o), Boolean(o.json));
    });

  program.commandsGroup('Labs:');
  program
    .command('list')
    .description('list every lab with what it shows')
    .action(() => {
      const w = Math.max(...registry.map((l) => l.name.length));
      for (const l of registry) process.stdout.write(`${l.name.padEnd(w)}  ${l.title}\n`);
    });
  runOptions(program.command('all'))
    .description('run every lab in order and print a summary table')
    .action(async (o) => {
      const { runCommand } = await import('./commands/run.js');
      // every lab with its registry defaults, as if run alone without options
      const defaults = Object.fromEntries(registry.map((entry) => [entry.name, optionValues(entry.options, {})]));
      state.code = await runCommand(registry, configFrom(o), o, defaults, state.signal, true);
    });
  for (const entry of registry) labCommand(program, entry, state);
  return program;
}

function labCommand(program: Command, entry: LabEntry, state: CliState) {
  const cmd = runOptions(program.command(entry.name)).description(entry.title);
  addLabOptions(cmd, entry.options);
  cmd.addHelpText('after', `\nWhat it proves:\n  ${wrap(entry.proves, 78).join('\n  ')}\n\nDocs: docs/labs/${entry.name}.md`);
  cmd.action(async (o) => {
    const { runCommand } = await import('./commands/run.js');
    state.code = await runCommand([entry], configFrom(o), o, { [entry.name]: optionValues(entry.options, o) }, state.signal, false);
  });
  for (const tool of entry.tools ?? []) labToolCommand(cmd, entry, tool, state);
}

/** `mqlab <lab> <tool>`: a subcommand of the lab's command (which still runs the lab on its own) */
function labToolCommand(labCmd: Command, entry: LabEntry, tool: LabTool, state: CliState) {
  const cmd = connectionOptions(labCmd.command(tool.name))
    .description(tool.description)
    .option('--namespace <ns>', 'the namespace whose tables to use (env MQLAB_NAMESPACE)');
  addLabOptions(cmd, tool.options);
  cmd.action(async (_o, self: Command) => {
    // the lab's command also knows the connection flags and --namespace: wherever they were
    // written, they reach the tool through optsWithGlobals
    const o = self.optsWithGlobals();
    const { toolCommand } = await import('./commands/tool.js');
    state.code = await toolCommand(entry, tool, configFrom(o), optionValues(tool.options, o));
  });
}

function addLabOptions(cmd: Command, options: LabOption[] = []) {
  for (const opt of options) {
    const o = new Option(opt.flags, opt.description);
    if (opt.default !== undefined) o.default(opt.default);
    if (opt.parse) o.argParser((raw) => opt.parse!(raw));
    if (opt.required) o.makeOptionMandatory();
    cmd.addOption(o);
  }
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
