/**
 * The `npx mqlab` path, as a new user takes it: the packed package run with `npm exec` from an
 * empty folder and a fresh HOME. The shared services already run, so `up` finds them; one lab runs;
 * `down` must leave alone what this data folder did not start — the broker still answers after it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { CONFIG, ROOT, expectPassed, useNamespace } from './helpers.js';
import { probe, allUp } from '../src/services/probe.js';
import { versionIn } from './report.js';

const NS = useNamespace(import.meta.url).namespace; // npm exec below names it with --namespace

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-npx-'));
const empty = path.join(tmp, 'empty');
const home = path.join(tmp, 'home');
const VERSION = versionIn(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
let tgz = '';

/** `npm exec --package=<tgz> -- <command…>` in the empty folder; npm's own cache (deps are there) */
async function npmExec(command: string[]) {
  const r = await execa('npm', ['exec', '--yes', '--prefer-offline', `--package=${tgz}`, '--', ...command], {
    cwd: empty,
    reject: false,
    env: {
      HOME: home,
      npm_config_cache: path.join(os.homedir(), '.npm'),
      npm_config_update_notifier: 'false',
      NO_COLOR: '1',
      XDG_STATE_HOME: undefined,
      MQLAB_HOME: undefined,
      // the management account's password is the suite's data folder's secret, not in the new home
      MQLAB_MGMT_URL: CONFIG.mgmtUrl,
    },
  });
  return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  fs.mkdirSync(empty);
  fs.mkdirSync(home);
  // dist/ is built by `npm test` (pretest); packing without scripts keeps this test short
  const r = await execa('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', tmp], { cwd: ROOT });
  tgz = path.join(tmp, r.stdout.trim().split('\n').pop()!);
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('npx mqlab from the packed package', () => {
  it('--version, up (finds the running services), one lab, down (stops nothing it did not start)', async () => {
    const started = Date.now();
    const version = await npmExec(['sh', '-c', 'mqlab --version && readlink -f "$(command -v mqlab)"']);
    expect(version.code, version.stderr).toBe(0);
    const [printed, bin] = version.stdout.trim().split('\n');
    expect(printed).toBe(VERSION);
    const pkgDir = path.dirname(path.dirname(bin ?? ''));
    expect(pkgDir).not.toContain(ROOT); // the installed copy, not this clone
    expect(fs.existsSync(path.join(pkgDir, '.git'))).toBe(false);

    const up = await npmExec(['mqlab', 'up']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stderr).toContain('services are already up');

    expectPassed(await npmExec(['mqlab', 'compensate', '--namespace', NS]), {
      line: /^compensation: attempts=2 applied=1 /,
    });

    const down = await npmExec(['mqlab', 'down']);
    expect(down.code, down.stderr).toBe(0);
    expect(down.stderr).toContain('RabbitMQ node was not running');
    expect(allUp(await probe(CONFIG))).toBe(true); // the services this suite runs on (MQLAB_*)
    // the data folder is never the package folder (for npx: npm's cache)
    expect(fs.existsSync(path.join(pkgDir, '.mqlab'))).toBe(false);
    expect(fs.readdirSync(empty)).toEqual([]);
    console.log(`npx path: ${((Date.now() - started) / 1000).toFixed(1)} s for version, up, compensate, down`);
  }, 180_000);

  it('ships only runtime files: no tests, no bench, a LICENSE', async () => {
    const r = await execa('tar', ['-tzf', tgz]);
    const files = r.stdout.split('\n');
    expect(files).toContain('package/LICENSE');
    expect(files).toContain('package/dist/cli/mqlab.js'); // the bundle (scripts/bundle.ts), not dist/src's modules
    expect(files.filter((f) => /\.test\.|bench|\.ts$|^package\/dist\/(src|labs)\/|\.v8-cache/.test(f))).toEqual([]);
  });
});
