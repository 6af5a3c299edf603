import type { TestProject } from 'vitest/node';
import { execa } from 'execa';
import { CLI } from './helpers.js';
import { ensureChromium } from './chromium.js';
import { ensurePythonPika } from './python-pika.js';

/**
 * `npm test` brings the services up itself (the same `mqlab up`; a no-op when they run), and the
 * project that holds the browser test (test/html.int.test.ts) installs Debian's chromium when it is
 * missing (root and apt-get; else one line, and that test fails with it), and the same projects Debian's
 * python3-pika and python3-psycopg2 for mqlab check's Python reference consumers.
 */
export default async function setup(project: TestProject) {
  const r = await execa('node', [CLI, 'up'], { reject: false, all: true, env: { ...process.env, NO_COLOR: '1' } });
  if (r.exitCode !== 0) throw new Error(`mqlab up failed (exit ${r.exitCode}):\n${r.all}`);
  if (!BROWSER_PROJECTS.includes(project.name)) return;
  const say = (line: string) => process.stderr.write(`mqlab test setup: ${line}\n`);
  const missing = await ensureChromium(say);
  if (missing) say(missing);
  // the Python reference consumers of mqlab check (test/check-consumers.int.test.ts, a disruptive file)
  const python = await ensurePythonPika(say);
  if (python) say(python);
}

/**
 * the vitest projects (vitest.config.ts) whose files open Chromium: test/live.int.test.ts in the serial
 * group, test/html.int.test.ts there too or, with a second set for the disruptive files (`npm test`,
 * .ci/run), in their own project, run by a second vitest process; test/pauses.int.test.ts in the serial
 * group or in 'integration-pages' (.ci/run: a third process); apt-get waits for the other's lock
 */
export const BROWSER_PROJECTS = ['integration-serial', 'integration-disruptive', 'integration-pages'];
