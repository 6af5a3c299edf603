/**
 * Labs that need a real second process (a consumer that crashes, an archiver) spawn a lab script
 * with runChild. The child gets the run's URLs and the lab's resource names (already namespaced)
 * through MQLAB_* variables, prints
 * key=value event lines on stdout (see child-runtime.ts), and the parent records each one in its log
 * as soon as the line arrives (so -v and --step show a child's events when they happen, in the order
 * they reach the parent, among the parent's own). Spawned with node:child_process itself: a lab
 * that starts a process does not load a process library's 130 modules first.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { spawn } from 'node:child_process';
import type { LabContext } from '../../lab/lab.js';
import { parseEvent, type LabEvent } from '../../log/events.js';
import { writeOutput } from '../../report/out-files.js';
import { CHILD_LOST_EXIT, ServiceLost, type ServiceName } from '../../core/lost.js';
import { isGateMessage } from '../gates/replay-gate.js';
import { heldDeadline, holdCounter } from '../gates/held-deadline.js';
import { LabError } from '../../core/errors.js';
import { messageOf } from '../../core/checkpoint-view.js';
import { must } from '../../core/must.js';
import { WAIT_FOR_START_ENV } from './start.js';
import { deferred } from '../../core/time.js';

export interface ChildRun {
  name: string;
  /** as a shell reports it: 128 + signal number when the process was killed (SIGKILL → 137) */
  exitCode: number;
  signal: string | null;
  stdout: string;
  stderr: string;
  events: LabEvent[];
}

interface ChildOptions {
  args?: string[];
  /** the lab's resource names (its names.ts result) the child uses: built once, in the parent */
  names?: object;
  /** extra environment for the child */
  env?: Record<string, string>;
  /** the bound on the child's run (default 60 s), not counting the time it is held at its gates */
  timeoutMs?: number;
  /**
   * the child calls replayGate (src/kit/gates/replay-gate.ts): each of its gates becomes ctx.checkpoint here
   * (logged; with --step it waits for Enter) and the child goes on once it returns
   */
  gates?: boolean;
  /**
   * when this settles while the process still runs, it is ended with SIGTERM (its ChildRun says
   * exitCode 143, signal SIGTERM): a lab's own way to stop a process it no longer needs
   */
  stop?: Promise<unknown>;
  /**
   * start the process now and let it begin its work only once this fulfils: its start (Node, loading,
   * connecting, ~0.2 s) overlaps what the lab does meanwhile, and the process touches no queue or table
   * before (src/kit/child/runtime.ts waits for the word). It may fulfil with more arguments, known only then
   * (the child reads them in `rt.args`, after `args`). The wait does not count toward `timeoutMs`. When
   * it rejects, the process is ended with SIGTERM unstarted (exitCode 143): a lab that needs it no more.
   */
  startWhen?: Promise<readonly string[] | void>;
}

/** a process started ahead of its turn (runChild's startWhen): connected now, it works once `start` is called */
export interface Ahead {
  /** let it work, with more arguments known only now (`rt.args`); resolves when it has ended */
  start(more?: readonly string[]): Promise<ChildRun>;
  /** end it unstarted (a no-op once started): a lab that does not need it after all */
  drop(): void;
}

/**
 * Start `script` now and hold it before its work: its Node start and connect (~0.1-0.2 s) overlap
 * what the lab does until `start`. One never started ends when the lab's run settles (`ctx.ended`),
 * whichever way it ends; `drop` ends it sooner.
 */
export function startAhead(
  ctx: LabContext,
  name: string,
  script: URL,
  opts: Omit<ChildOptions, 'startWhen'> = {},
): Ahead {
  const go = deferred<readonly string[]>();
  const run = runChild(ctx, name, script, { ...opts, startWhen: go.promise });
  run.catch(() => {}); // awaited through start(); one that is dropped is not
  const drop = () => go.reject(new Error(`${name} not needed`)); // a no-op once started
  if (ctx.ended.aborted) drop();
  else ctx.ended.addEventListener('abort', drop, { once: true });
  return {
    start(more = []) {
      go.resolve(more);
      return run;
    },
    drop,
  };
}

/**
 * Run `script` (a .js file beside the lab's compiled code, e.g. new URL('./consumer.js', import.meta.url))
 * as process `name` and wait for it to end. With --out DIR its output is kept as DIR/<name>.out.txt.
 */
export async function runChild(ctx: LabContext, name: string, script: URL, opts: ChildOptions = {}): Promise<ChildRun> {
  const file = fileURLToPath(script);
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const child = spawn(process.execPath, [file, ...(opts.args ?? [])], {
    stdio: [opts.startWhen ? 'pipe' : 'ignore', 'pipe', 'pipe', ...(opts.gates ? (['ipc'] as const) : [])],
    env: {
      ...process.env,
      MQLAB_AMQP_URL: ctx.config.amqpUrl,
      MQLAB_PG_URL: ctx.config.pgUrl,
      MQLAB_MGMT_URL: ctx.config.mgmtUrl,
      MQLAB_LAB_NAMES: JSON.stringify(opts.names ?? {}),
      MQLAB_LAB: ctx.lab,
      MQLAB_PROCESS: name,
      ...(opts.startWhen ? { [WAIT_FOR_START_ENV]: '1' } : {}),
      ...opts.env,
    },
  });
  // ended by the lab's bound (timedOut) or by an interrupt (canceled): SIGTERM, as the lab's own stop
  let timedOut = false;
  let canceled = false;
  // the bound leaves out the time the child is held at its gates (a --step pause may last minutes)
  const gates = holdCounter();
  const timer = heldDeadline(timeoutMs, gates, () => ((timedOut = true), child.kill('SIGTERM')));
  const onAbort = () => ((canceled = true), child.kill('SIGTERM'));
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  if (opts.gates) {
    child.on('message', (m: unknown) => {
      if (!isGateMessage(m)) return;
      void gates
        .hold(
          ctx.checkpoint(
            m.checkpoint,
            { process: name, messageId: m.messageId, token: m.token },
            messageOf(m.message, m.messageId),
          ),
        )
        .then(() => child.connected && child.send(m))
        .catch(() => {}); // the child is gone (killed at a gate) or the run was interrupted
    });
  }
  if (opts.startWhen) {
    const stdin = must(child.stdin ?? undefined, 'the child process stdin');
    stdin.on('error', () => {}); // a child that died before the word
    void gates.hold(opts.startWhen).then(
      (more) => stdin.end(JSON.stringify(more ?? []) + '\n'),
      () => child.kill('SIGTERM'),
    );
  }
  void opts.stop?.then(
    () => child.kill('SIGTERM'),
    () => child.kill('SIGTERM'),
  );
  const events: LabEvent[] = [];
  const lines = lineSplitter((line) => {
    const e = parseEvent(line);
    if (e) events.push(ctx.log.record({ ...e, process: name }));
  });
  const utf8 = new StringDecoder('utf8'); // a character split between two chunks stays whole
  let stdout = '';
  let stderr = '';
  must(child.stdout ?? undefined, 'the child process stdout').on('data', (chunk: Buffer) => {
    const text = utf8.write(chunk);
    stdout += text;
    lines.push(text);
  });
  must(child.stderr ?? undefined, 'the child process stderr')
    .setEncoding('utf8')
    .on('data', (text: string) => (stderr += text));
  const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.on('error', (error) => resolve({ code: null, signal: null, error }));
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  timer.clear();
  ctx.signal.removeEventListener('abort', onAbort);
  const tail = utf8.end();
  stdout += tail;
  lines.push(tail);
  lines.end();
  const r = {
    stdout: stdout.replace(/\n$/, ''),
    stderr: (ended.error ? `${stderr}${ended.error.message}` : stderr).replace(/\n$/, ''),
  };
  const signal = ended.signal;
  const exitCode = signal ? 128 + (constants.signals[signal] ?? 0) : (ended.code ?? -1);
  if (r.stderr.trim())
    ctx.log.emit(name, { status: 'stderr', text: r.stderr.trim().split('\n').slice(-3).join(' | ') }, name);
  // when the process ended (a crash shows as exitCode=137 signal=SIGKILL), for --json and the --html timeline;
  // its own source, so a lab's filters on the child's sources (consumer, archiver …) are unchanged
  ctx.log.emit('exit', { status: 'exited', exitCode, signal: signal ?? undefined }, name);
  const output = [r.stdout, r.stderr].filter(Boolean).join('\n');
  if (ctx.outDir) writeOutput(path.join(ctx.outDir, `${name}.out.txt`), output ? output + '\n' : '');
  if (canceled) throw ctx.signal.reason ?? new Error('interrupted');
  if (exitCode === CHILD_LOST_EXIT) throw childLoss(ctx, name, r.stderr);
  // the lab's own bound, not an outcome of the experiment: its exit code (143) must not become a verdict
  if (timedOut)
    throw new LabError(
      `process ${name} did not end within ${timeoutMs / 1000} s (not counting its pauses) and was stopped (a very busy machine?)`,
    );
  return { name, exitCode, signal, stdout: r.stdout, stderr: r.stderr, events };
}

/** the `[lost] service=… cause=…` line of a child that exited with CHILD_LOST_EXIT */
function childLoss(ctx: LabContext, name: string, stderr: string): ServiceLost {
  const line = stderr
    .split('\n')
    .map(parseEvent)
    .find((e) => e?.source === 'lost');
  const service = (line?.fields.service ?? 'RabbitMQ') as ServiceName;
  const url =
    service === 'PostgreSQL' ? ctx.config.pgUrl : service === 'RabbitMQ' ? ctx.config.amqpUrl : ctx.config.mgmtUrl;
  return new ServiceLost(
    service,
    url,
    `${line?.fields.cause ?? 'connection lost during the run'} (in process ${name})`,
  );
}

/** complete lines of a stream, one call each, as they arrive; end() hands over a last line without its newline */
export function lineSplitter(onLine: (line: string) => void): { push(text: string): void; end(): void } {
  let rest = '';
  return {
    push(text) {
      const parts = (rest + text).split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) onLine(line.replace(/\r$/, ''));
    },
    end() {
      if (rest) onLine(rest);
      rest = '';
    },
  };
}
