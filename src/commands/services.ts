import type { Config } from '../config.js';
import type { Registry } from '../lab.js';
import { down, parseBackend, parseNodes, up } from '../services/index.js';
import { allUp } from '../services/probe.js';
import { renderStatus, status } from '../services/status.js';
import { UP_HINT } from '../errors.js';

const log = (line: string) => process.stderr.write(`mqlab: ${line}\n`);

export async function upCommand(config: Config, backend: string, nodes?: string): Promise<number> {
  await up(config, parseBackend(backend), log, nodes === undefined ? undefined : parseNodes(nodes));
  process.stdout.write('services are up: run `mqlab list` to see the labs, `mqlab retry` to run one, `mqlab all` for every lab\n');
  return 0;
}

export async function downCommand(config: Config, backend: string, volumes: boolean): Promise<number> {
  await down(config, parseBackend(backend), volumes, log);
  return 0;
}

export async function statusCommand(registry: Registry, config: Config, json: boolean): Promise<number> {
  const s = await status(registry, config);
  if (json) process.stdout.write(JSON.stringify(s, null, 2) + '\n');
  else process.stdout.write(renderStatus(s).join('\n') + '\n');
  if (!allUp(s.probe)) {
    if (!json) process.stderr.write(`mqlab: not every service is reachable\n  → ${UP_HINT}\n`);
    return 2;
  }
  return 0;
}
