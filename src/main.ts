/** Entry point: the only place that calls process.exit. Maps errors to exit codes 1/2/130. */
import { buildProgram, type CliState } from './cli.js';
import { EnvError, Interrupted } from './errors.js';
import { maskText } from './urls.js';
import { redactStreams } from './log/redact-streams.js';

// every byte mqlab prints passes through redactSecrets (the URLs' passwords, masked URLs)
redactStreams(process.stdout, process.stderr);

const controller = new AbortController();
const state: CliState = { code: 0, signal: controller.signal };

let interrupts = 0;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    process.stderr.write(`\nmqlab: ${sig} — stopping (press Ctrl-C again to quit at once)\n`);
    controller.abort();
  });
}

let code: number;
try {
  await buildProgram(state).parseAsync(process.argv);
  code = state.code;
} catch (err) {
  code = exitCodeFor(err);
}
// a pipe takes 64 KiB at once: let a large --json document (or any output) drain before exiting
await Promise.all([process.stdout, process.stderr].map((s) => new Promise((resolve) => s.write('', resolve))));
process.exit(code);

function exitCodeFor(err: unknown): number {
  const e = err as { code?: string; exitCode?: number; message?: string };
  if (typeof e?.code === 'string' && e.code.startsWith('commander.')) {
    // commander already printed help, version or the usage error
    return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.exitCode === 0 ? 0 : 2;
  }
  if (err instanceof Interrupted || controller.signal.aborted) {
    process.stderr.write('mqlab: interrupted; the next run resets the lab state\n');
    return 130;
  }
  if (err instanceof EnvError) {
    process.stderr.write(`mqlab: ${maskText(err.message)}\n`);
    if (err.hint) process.stderr.write(`  → ${err.hint}\n`);
    return 2;
  }
  process.stderr.write(`mqlab: internal error: ${maskText(String(e?.message ?? err))}\n`);
  if (process.env.MQLAB_DEBUG) process.stderr.write(`${(err as Error)?.stack}\n`);
  return 1;
}
