import { execa } from 'execa';
import { CLI } from './helpers.js';

/** `npm test` brings the services up itself (the same `mqlab up`; a no-op when they run). */
export default async function setup() {
  const r = await execa('node', [CLI, 'up'], { reject: false, all: true, env: { ...process.env, NO_COLOR: '1' } });
  if (r.exitCode !== 0) throw new Error(`mqlab up failed (exit ${r.exitCode}):\n${r.all}`);
}
