/**
 * The program's run: the only place that calls process.exit, with the exit code the command
 * returned or the one its error carries (src/core/errors.ts: 2 usage/environment, 130 interrupted, else 1).
 * The catalogue of labs comes from the entry point (bin/mqlab.js): the engine imports no lab.
 */
import type { Outcome } from './cli.js';
import type { Catalogue } from '../lab/lab.js';
import type * as Errors from '../core/errors.js';
import type * as JunitModule from '../report/junit-file.js';
import type { RunEnd } from '../report/junit.js';
import { endQuietlyWhenClosed } from './stdout-closed.js';
import { quickOutput } from './top-help.js';

/**
 * The modules every command past --help and list needs, loaded by main once it knows that
 * (each module a start loads costs it time: `mqlab --help` is held to 1.3 × a bare `node -e 0`)
 */
let errors: typeof Errors;
let maskText: (text: string) => string;

export async function main(catalogue: Catalogue, argv: string[] = process.argv): Promise<never> {
  let code = 0;
  // `mqlab list | head -1`: a closed pipe ends the program quietly, not with a stack trace
  endQuietlyWhenClosed(process.stdout, (exitCode = code) => process.exit(exitCode));
  // --help, list, --version: printed from the catalogue, without commander and the CLI's modules
  const quick = quickOutput(catalogue, argv.slice(2), process.stdout.isTTY ? process.stdout.columns : undefined);
  if (quick !== null) {
    await new Promise((resolve) => process.stdout.write(quick, resolve));
    process.exit(0);
  }
  const [errorsModule, urls, { redactStreams }, { withSbin }, { runCli }] = await Promise.all([
    import('../core/errors.js'),
    import('../core/urls.js'),
    import('../log/redact-streams.js'),
    import('../services/process.js'),
    import('./cli.js'),
  ]);
  errors = errorsModule;
  maskText = urls.maskText;
  // every byte mqlab prints from here on passes through redactSecrets (the URLs' passwords, masked URLs)
  redactStreams(process.stdout, process.stderr);
  const controller = new AbortController();
  // the second Ctrl-C asks the run under way for its --junit file (src/cli/commands/run-labs.ts RunSignals)
  const quit = new EventTarget();
  // the --junit writer (with the text renderer) loads only when the arguments ask for a file
  const junitCode = argv.some((a) => a === '--junit' || a.startsWith('--junit='))
    ? await import('../report/junit-file.js')
    : null;
  // the services' tools (chroot, debootstrap, runuser) live in /usr/sbin, which a non-login PATH
  // (`env -i`, some CI runners) lacks: every chroot service command failed with no output
  process.env.PATH = withSbin(process.env.PATH);

  let interrupts = 0;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      interrupts += 1;
      if (interrupts > 1) {
        const running = junitCode && new junitCode.QuitNow();
        if (running) quit.dispatchEvent(running);
        finishJunit(junitCode, running?.junit, argv, 130, {
          kind: 'interrupted',
          message: `interrupted by ${sig} (twice)`,
        });
        process.exit(130);
      }
      process.stderr.write(`\nmqlab: ${sig} — stopping (press Ctrl-C again to quit at once)\n`);
      controller.abort();
    });
  }

  // after an interrupt, a promise a lab started and had not awaited yet (a child process, a timer)
  // rejects with nobody listening: that is part of stopping, not a crash; before it, a bug — yet one that
  // says the environment failed (a management API refusing) still ends as environment errors do: its one
  // line, exit 2, and the --junit file saying why
  process.on('unhandledRejection', (reason) => {
    if (controller.signal.aborted) return;
    const code = exitCodeFor(reason, controller.signal);
    finishJunit(junitCode, undefined, argv, code, runEnd(reason, code));
    process.exit(code);
  });
  process.on('rejectionHandled', () => {}); // one of those awaited late after all: no warning

  const outcome: Outcome = await runCli(catalogue, argv, { signal: controller.signal, quit }).catch(
    (error: unknown) => ({ error }),
  );
  // a second signal already delivered while the run stopped is handled before the ordinary ending (its
  // handler quits at once): the signal waits in libuv's pipe until the loop polls, and a stop that ends in
  // promises alone exits before that (seen: SIGINT then SIGTERM at once, the junit file said one interrupt)
  if (controller.signal.aborted) await new Promise((resolve) => setTimeout(resolve, 5));
  let end: Pick<RunEnd, 'kind' | 'message'> | undefined;
  if ('error' in outcome) {
    code = exitCodeFor(outcome.error, controller.signal);
    end = runEnd(outcome.error, code);
  } else code = outcome.code;
  finishJunit(junitCode, outcome.junit, argv, code, end);
  // a pipe takes 64 KiB at once: let a large --json document (or any output) drain before exiting
  await Promise.all([process.stdout, process.stderr].map((s) => new Promise((resolve) => s.write('', resolve))));
  process.exit(code);
}

/** an early exit still leaves a --junit file, with an <error> testcase saying why: the run's, else the argv's */
function finishJunit(
  junitCode: typeof JunitModule | null,
  runJunit: JunitModule.JunitFile | undefined,
  argv: string[],
  code: number,
  why: Pick<RunEnd, 'kind' | 'message'> | undefined,
): void {
  if (code === 0 || !why) return;
  const argvFile = junitCode?.junitFromArgv(argv.slice(2));
  const junit = runJunit ?? (argvFile && junitCode ? new junitCode.JunitFile(argvFile) : undefined);
  if (!junit || junit.written) return;
  try {
    junit.write(why);
  } catch (err) {
    // a usage or environment error already said what is wrong in one line (often: this very path)
    if (code === 2) return;
    process.stderr.write(`mqlab: could not write the JUnit file ${junit.file}: ${(err as Error).message}\n`);
  }
}

function runEnd(err: unknown, code: number): Pick<RunEnd, 'kind' | 'message'> {
  const e = err as { message?: string; hint?: string };
  const message = maskText(String(e?.message ?? err))
    .replace(/^error: /, '')
    .trim();
  if (code === 130)
    return { kind: 'interrupted', message: 'interrupted (SIGINT/SIGTERM); the next run resets the lab state' };
  if (code === 2)
    return {
      // commander's own usage errors (an unknown flag) are no MqlabError
      kind: err instanceof errors.MqlabError ? err.kind : 'usage',
      message: e?.hint ? `${message} (${e.hint})` : message,
    };
  return { kind: 'internal', message };
}

function exitCodeFor(err: unknown, signal: AbortSignal): number {
  const e = err as { code?: string; exitCode?: number; message?: string };
  if (typeof e?.code === 'string' && e.code.startsWith('commander.')) {
    // commander already printed help, version or the usage error
    return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.exitCode === 0 ? 0 : 2;
  }
  // after Ctrl-C, whatever the labs threw while stopping is the interrupt
  const code = signal.aborted ? 130 : err instanceof errors.MqlabError ? err.exitCode : 1;
  if (code === 130) {
    process.stderr.write('mqlab: interrupted; the next run resets the lab state\n');
    return code;
  }
  if (err instanceof errors.EnvError) {
    process.stderr.write(`mqlab: ${maskText(err.message)}\n`);
    if (err.hint) process.stderr.write(`  → ${err.hint}\n`);
    return code;
  }
  process.stderr.write(`mqlab: internal error: ${maskText(String(e?.message ?? err))}\n`);
  if (process.env.MQLAB_DEBUG) process.stderr.write(`${(err as Error)?.stack}\n`);
  return 1;
}
