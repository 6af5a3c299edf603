/** Helpers for integration tests: run the real CLI, and look at the real services. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { execa } from 'execa';
import { Broker } from '../src/broker/broker.js';
import { Management } from '../src/broker/management.js';
import { openDb, type Db } from '../src/db/client.js';
import { loadConfig } from '../src/core/config.js';
import { namespaced, type Names } from '../src/core/names.js';
import { namespaceOfFile } from './namespace.js';
import { parseRun } from './report.js';
import { must } from '../src/core/must.js';
import { text } from '../src/core/text.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CLI = path.join(ROOT, 'bin', 'mqlab.js');

/** the services the tests reach: the MQLAB_* variables (URLs, MQLAB_PORT_OFFSET) as the CLI reads them */
export const CONFIG = loadConfig({}, process.env);
/** "host:port" of each service, as a test writes it in a URL, and escaped for a RegExp */
export const AT = {
  amqp: new URL(CONFIG.amqpUrl).host,
  pg: new URL(CONFIG.pgUrl).host,
  mgmt: new URL(CONFIG.mgmtUrl).host,
};
export const AT_RE = { amqp: escapeRe(AT.amqp), pg: escapeRe(AT.pg), mgmt: escapeRe(AT.mgmt) };
/** the services' ports, read from the URLs the tests reach (MQLAB_* or the defaults with MQLAB_PORT_OFFSET) */
export const PORT = {
  amqp: Number(new URL(CONFIG.amqpUrl).port || 5672),
  postgres: Number(new URL(CONFIG.pgUrl).port || 5432),
  management: Number(new URL(CONFIG.mgmtUrl).port || 15672),
};
function escapeRe(s: string) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  lines: string[];
}

let fileNamespace = '';

/**
 * This test file's own namespace: every `mqlab …` the helpers start runs in it (MQLAB_NAMESPACE;
 * a --namespace flag still wins), so what one file leaves behind never decides another's verdict,
 * and files may run at the same time. Call it once at the top of each *.int.test.ts with
 * `import.meta.url` (the namespace is then derived from the file name, test/namespace.ts), or with
 * a literal; returns the names to look the resources up with. test/int-namespaces.test.ts checks
 * that every file does and that no two files share a namespace.
 */
export function useNamespace(fileUrlOrNamespace: string): Names {
  fileNamespace = fileUrlOrNamespace.startsWith('file:') ? namespaceOfFile(fileUrlOrNamespace) : fileUrlOrNamespace;
  return namespaced(fileNamespace);
}

/** the environment of a CLI child: no colours, this file's namespace, then `env` */
const childEnv = (env: Record<string, string | undefined> = {}) => ({
  ...process.env,
  NO_COLOR: '1',
  ...(fileNamespace ? { MQLAB_NAMESPACE: fileNamespace } : {}),
  ...env,
});

/** the longest a test's `mqlab` run may take (then it is stopped and its output shown); a test of N runs is given N × this */
export const RUN_CAP_MS = 300_000;

/** run `mqlab …` as a user would (the built CLI), without colours, in this file's namespace */
export async function mqlab(
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = RUN_CAP_MS,
): Promise<CliRun> {
  const r = await execa('node', [CLI, ...args], {
    reject: false,
    timeout: timeoutMs,
    env: childEnv(env),
    extendEnv: true,
  });
  return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr, lines: r.stdout.split('\n') };
}

/** run a lab with --json and return the lab's part of the document (`env`: e.g. MQLAB_FAULT) */
export async function runLabJson<F = Record<string, unknown>>(
  lab: string,
  extra: string[] = [],
  env: Record<string, string> = {},
) {
  const r = await mqlab([lab, '--json', ...extra], env);
  if (!r.stdout.trim().startsWith('{'))
    throw new Error(`mqlab ${lab} printed no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  const doc = parseRun<F>(r.stdout);
  const report = must(doc.labs[0], `the lab in mqlab ${lab}'s --json document`);
  if (r.code !== 0) {
    // say why in the test log: the failed checks, or why the experiment did not complete
    const failed = report.checks.filter((c) => !c.pass);
    const why = 'error' in report ? text(report.error) : JSON.stringify(failed);
    console.error(`mqlab ${[lab, ...extra].join(' ')} exited ${r.code}: ${why}\n${r.stderr}`);
  }
  return { code: r.code, doc, report, stderr: r.stderr };
}

export interface Services {
  broker: Broker;
  mgmt: Management;
  db: Db;
  close(): Promise<void>;
}

/** direct connections to what `mqlab up` started, to assert what the broker and database show */
export async function services(): Promise<Services> {
  const config = CONFIG;
  const broker = await Broker.connect(config.amqpUrl);
  const { db } = await openDb(config.pgUrl);
  return {
    broker,
    db,
    mgmt: new Management(config.mgmtUrl, config.vhost),
    close: async () => {
      await broker.close();
      await db.end({ timeout: 1 });
    },
  };
}

/** a lab's PASS/FAIL lines as {name: value} */
export function passLines(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [, name, value] of stdout.matchAll(/^PASS ([^:]+): (.*)$/gm))
    if (name !== undefined && value !== undefined) out[name] = value;
  return out;
}

/**
 * Connections for one describe block: opened in beforeAll (then `setup`), closed in afterAll
 * (after `teardown`). The returned object's fields are filled in beforeAll, so use them in tests
 * and hooks, not while the describe block is collected.
 */
export function useServices(
  hooks: { setup?: (s: Services) => Promise<void>; teardown?: (s: Services) => Promise<void> } = {},
): Services {
  const s = {} as Services;
  beforeAll(async () => {
    Object.assign(s, await services());
    await hooks.setup?.(s);
  });
  afterAll(async () => {
    if (!s.close) return; // never connected: beforeAll failed, and said why
    try {
      await hooks.teardown?.(s);
    } finally {
      await s.close();
    }
  });
  return s;
}

const ALL_PASSED = 'RESULT: all assertions passed';

export interface LabPasses {
  /** the first line (exactly, or matching), or the first lines exactly */
  line: string | RegExp | readonly string[];
  /** PASS lines that must be among the lab's ({name: value}) */
  pass?: Record<string, string>;
  /** with `pass`: these are all its PASS lines, none more */
  exact?: boolean;
  /** how many times in a row */
  runs?: number;
  /** more checks after each run (the broker's and the database's state, files …) */
  check?: (r: CliRun, run: number) => Promise<void> | void;
}

/** a finished lab process passed: exit 0 (its output as the message), its first line(s), its PASS lines, the RESULT line last */
export function expectPassed(
  r: Pick<CliRun, 'code' | 'stdout' | 'stderr'>,
  { line, pass, exact }: Omit<LabPasses, 'runs' | 'check'>,
) {
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const lines = r.stdout.split('\n');
  if (typeof line === 'string') expect(lines[0]).toBe(line);
  else if (line instanceof RegExp) expect(lines[0]).toMatch(line);
  else expect(lines.slice(0, line.length)).toEqual(line);
  if (pass && exact) expect(passLines(r.stdout)).toEqual(pass);
  else if (pass) expect(passLines(r.stdout)).toMatchObject(pass);
  expect(r.stdout.trim().split('\n').pop()).toBe(ALL_PASSED);
}

/** run `mqlab …args` `runs` times (2 unless told), each must pass as expectPassed says; returns the runs */
export async function expectLabPasses(args: string[], { runs = 2, check, ...expected }: LabPasses): Promise<CliRun[]> {
  const done: CliRun[] = [];
  for (let run = 1; run <= runs; run++) {
    const r = await mqlab(args);
    expectPassed(r, expected);
    await check?.(r, run);
    done.push(r);
  }
  return done;
}

/**
 * For the files of labs that stop a service: a failed test may leave it stopped (a hung run killed
 * mid-outage); `mqlab up` starts it, so the failure is reported once, there, and not again by every
 * file that runs after it.
 */
export function upAgainAfterFailure(): void {
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') await mqlab(['up']);
  });
}

/** `mqlab …args` as a child to watch and signal; `stderrShows` resolves as soon as its stderr holds `text` */
export function startMqlab(args: string[]) {
  const child = execa('node', [CLI, ...args], { reject: false, env: childEnv() });
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stderr?.on('data', (b: Buffer) => {
    stderr += b.toString();
    for (const w of watchers) w();
  });
  child.once('exit', () => setImmediate(() => watchers.forEach((w) => w())));
  const stderrShows = (text: string, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const end = (err?: Error) => {
        clearTimeout(timer);
        watchers.delete(watch);
        if (err) reject(err);
        else resolve();
      };
      const watch = () => {
        if (stderr.includes(text)) end();
        else if (child.exitCode !== null || child.signalCode !== null)
          end(new Error(`mqlab exited before '${text}' showed on stderr:\n${stderr}`));
      };
      const timer = setTimeout(
        () => end(new Error(`no '${text}' on stderr within ${timeoutMs} ms:\n${stderr}`)),
        timeoutMs,
      );
      watchers.add(watch);
      watch();
    });
  /** the child's end, bounded: past `timeoutMs` it is killed and the error shows what it printed */
  const exited = async (timeoutMs: number) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`mqlab did not exit within ${timeoutMs} ms; its stderr:\n${stderr}`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([child, late]);
    } finally {
      clearTimeout(timer);
    }
  };
  return { child, stderrShows, exited, stderr: () => stderr };
}

/** the checks a `--json` run failed, one line each (for an assertion's message); '' when stdout is no document */
export function failedChecks(stdout: string): string {
  try {
    const doc = JSON.parse(stdout) as {
      labs: {
        lab: string;
        status: string;
        error?: string | { message: string };
        skipped?: string;
        checks?: { name: string; pass: boolean; actual: unknown; expected: unknown }[];
      }[];
    };
    return doc.labs
      .flatMap((l) => [
        ...(l.status === 'passed' || l.status === 'failed'
          ? []
          : [
              `${l.status.toUpperCase()} ${l.lab}: ${typeof l.error === 'object' ? l.error.message : (l.error ?? l.skipped)}`,
            ]),
        ...(l.checks ?? [])
          .filter((c) => !c.pass)
          .map((c) => `FAIL ${l.lab} ${c.name}: ${JSON.stringify(c.actual)}, expected ${JSON.stringify(c.expected)}`),
      ])
      .join('\n');
  } catch {
    return '';
  }
}
