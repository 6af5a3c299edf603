/**
 * The log file of the RabbitMQ node mqlab started (chroot and system backends: the node's log under
 * the data folder), for a lab that quotes what the broker wrote there: what clients never see, such
 * as the warning of an at-least-once policy that falls back to at-most-once.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../core/config.js';
import { SINGLE_NODE_NAME } from '../core/defaults.js';
import { ownServicesRefusal } from './control.js';
import { recordedBackend } from './data-folder.js';
import { existingServiceDir, hostOf, outer } from './host.js';

interface BrokerLog {
  file: string;
  /** the lines written since this reader was opened */
  since(): string[];
}

/** a reader of the node's log from its current end, or why there is none (docker, a broker of the user's) */
export function ownBrokerLog(config: Config): BrokerLog | string {
  const backend = recordedBackend(config.home);
  if (backend !== 'chroot' && backend !== 'system')
    return `the broker's log is read only on mqlab's chroot and system backends (this data folder: ${backend ?? 'none'})`;
  const refusal = ownServicesRefusal(config);
  if (refusal) return refusal.replace(/ \(this lab stops and starts them\)$/, '');
  const host = hostOf(config, backend);
  const dir = existingServiceDir(host, 'rabbitmq');
  if (!dir) return `no RabbitMQ node folder under ${config.home}`;
  const file = outer(host, path.join(dir, 'log', `${SINGLE_NODE_NAME}.log`));
  let start: number;
  try {
    start = fs.statSync(file).size;
  } catch {
    return `no log file ${file}`;
  }
  return {
    file,
    since() {
      const fd = fs.openSync(file, 'r');
      try {
        const size = fs.fstatSync(fd).size;
        if (size <= start) return [];
        const buf = Buffer.alloc(size - start);
        fs.readSync(fd, buf, 0, buf.length, start);
        return buf
          .toString('utf8')
          .split('\n')
          .filter((l) => l.length > 0);
      } finally {
        fs.closeSync(fd);
      }
    },
  };
}
