/** Helpers for integration tests: run the real CLI, and look at the real services. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { Broker } from '../src/broker/broker.js';
import { Management } from '../src/broker/management.js';
import { openDb, type Db } from '../src/db/client.js';
import { loadConfig } from '../src/config.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CLI = path.join(ROOT, 'bin', 'mqlab.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  lines: string[];
}

/** run `mqlab …` as a user would (the built CLI), without colours */
export async function mqlab(args: string[], env: Record<string, string | undefined> = {}, timeoutMs = 300_000): Promise<CliRun> {
  const r = await execa('node', [CLI, ...args], {
    reject: false,
    timeout: timeoutMs,
    env: { ...process.env, NO_COLOR: '1', ...env },
    extendEnv: true,
  });
  return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr, lines: r.stdout.split('\n') };
}

/** run a lab with --json and return the lab's part of the document */
export async function runLabJson(lab: string, extra: string[] = []) {
  const r = await mqlab([lab, '--json', ...extra]);
  if (!r.stdout.trim().startsWith('{')) throw new Error(`mqlab ${lab} printed no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  const doc = JSON.parse(r.stdout);
  const report = doc.labs[0];
  if (r.code !== 0) {
    // say why in the test log: the failed checks, or why the experiment did not complete
    const failed = report.checks.filter((c: { pass: boolean }) => !c.pass);
    console.error(`mqlab ${[lab, ...extra].join(' ')} exited ${r.code}: ${report.error ?? JSON.stringify(failed)}\n${r.stderr}`);
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
  const config = loadConfig({}, {});
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
  for (const m of stdout.matchAll(/^PASS ([^:]+): (.*)$/gm)) out[m[1]] = m[2];
  return out;
}
