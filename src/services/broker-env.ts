/**
 * Read and change settings of the `rabbit` application on the RabbitMQ node `mqlab up` started
 * (`rabbitmqctl eval`, application:set_env): for a setting the broker has only broker-wide, such as
 * 3.10's consumer_timeout, changed for the length of one run and set back after it. Only the services
 * of this data folder (as control.ts); the value a channel reads when it opens stays with that channel.
 */
import type { Config } from '../core/config.js';
import { EnvError } from '../core/errors.js';
import { recordedBackend, recordedNodes } from './data-folder.js';
import fs from 'node:fs';
import { existingServiceDir, hostOf, outer, run } from './host.js';
import { nodesFor, rabbitAccount, rabbitEnv } from './rabbitmq-node.js';
import { ownServicesRefusal } from './control.js';

/** a setting's value: a whole number, or undefined (not set: the broker's built-in default applies) */
export type RabbitEnv = Record<string, number | undefined>;

/** set `values` on node 1 of this data folder's services; resolves with the values they had */
export async function setRabbitEnv(config: Config, values: RabbitEnv): Promise<RabbitEnv> {
  const refusal = ownServicesRefusal(config);
  if (refusal) throw new EnvError(refusal, 'run `mqlab up` and leave the MQLAB_* URLs unset');
  const host = hostOf(config, recordedBackend(config.home) as 'chroot' | 'system');
  const node = nodesFor(config.ports, recordedNodes(config.home))[0]!; // at least one
  const dir = existingServiceDir(host, node.service);
  if (!dir) throw new EnvError(`no RabbitMQ node folder in ${config.home}`, 'run `mqlab up`');
  const keys = Object.keys(values);
  const set = keys.map((k) =>
    values[k] === undefined ? `application:unset_env(rabbit, ${k})` : `application:set_env(rabbit, ${k}, ${values[k]})`,
  );
  const expr = `Old = [application:get_env(rabbit, K) || K <- [${keys.join(', ')}]], ${set.join(', ')}, Old.`;
  // the package's own script: Debian's /usr/sbin/rabbitmqctl wrapper resets HOME to the rabbitmq
  // account's (/var/lib/rabbitmq), whose Erlang cookie is not the node's
  const ctl = ['/usr/lib/rabbitmq/bin/rabbitmqctl', '/usr/sbin/rabbitmqctl'].find((p) =>
    fs.existsSync(outer(host, p)),
  )!;
  const r = await run(
    host,
    rabbitAccount(host),
    ctl,
    ['eval', expr],
    rabbitEnv(dir, node.ports, node.name, true, node.dist),
    dir,
  );
  if (r.exitCode !== 0)
    throw new EnvError(`rabbitmqctl eval failed: ${(r.stderr || r.stdout).trim().split('\n').pop()}`, 'run `mqlab up`');
  return parseOld(keys, r.stdout);
}

/** `[{ok,1800000},undefined]` → { consumer_timeout: 1800000, channel_tick_interval: undefined } */
export function parseOld(keys: readonly string[], out: string): RabbitEnv {
  const items = out.match(/\{ok,[^}]*\}|undefined/g) ?? [];
  const value = (item: string | undefined) => {
    const n = /^\{ok,\s*(\d+)\}$/.exec(item ?? '')?.[1];
    return n === undefined ? undefined : Number(n);
  };
  return Object.fromEntries(keys.map((k, i) => [k, value(items[i])]));
}
