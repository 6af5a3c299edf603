/**
 * `mqlab check --consumer "CMD" [--effects "SQL"]`: the labs' faults turned on the user's own consumer
 * (src/check/). Exit 0 when every check passed, 1 when an anomaly was found; a consumer that is not
 * there, exits at once or never consumes is an environment error (exit 2, one line, main.ts).
 */
import { loadConfig, type ConfigInput } from '../../core/config.js';
import { checkOutputPaths, writeOutput } from '../../report/out-files.js';
import { useColour } from '../../report/text.js';
import { parseCheckFlags, type CheckFlags } from '../../check/options.js';
import { runCheck } from '../../check/run-check.js';
import { checkFailed, checkJson, checkJunit, renderCheck } from '../../check/output.js';

export type CheckCommandFlags = CheckFlags & ConfigInput & { json?: boolean; junit?: string; color?: boolean };

export async function checkCommand(flags: CheckCommandFlags, signal: AbortSignal): Promise<number> {
  const options = parseCheckFlags(flags);
  checkOutputPaths({ junit: flags.junit });
  const config = loadConfig({ amqpUrl: flags.amqpUrl, pgUrl: flags.pgUrl, namespace: flags.namespace });
  const amqp = new URL(config.amqpUrl);
  if (amqp.protocol !== 'amqp:')
    throw new (await import('../../core/errors.js')).UsageError(
      `mqlab check needs a plain amqp:// URL, got ${amqp.protocol}//`,
      'it puts a proxy between your consumer and the broker to see and cut the connection',
    );
  process.stderr.write(`check: seed ${options.seed} (--seed ${options.seed} repeats this run's kill moments)\n`);
  const run = await runCheck(config, options, signal, (line) => process.stderr.write(`check: ${line}\n`));
  if (flags.junit !== undefined) writeOutput(flags.junit, checkJunit(run));
  process.stdout.write(
    flags.json
      ? JSON.stringify(checkJson(run, config), null, 2) + '\n'
      : renderCheck(run, useColour(process.stdout, process.env, flags.color)).join('\n') + '\n',
  );
  return checkFailed(run) ? 1 : 0;
}
