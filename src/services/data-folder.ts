/**
 * MQLAB_HOME is mqlab's data folder. mqlab marks it when it creates it, and `down --volumes`
 * deletes only what mqlab made there: never a folder that is not mqlab's or holds anything else.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EnvError } from '../core/errors.js';

export const MARKER = '.mqlab-data';
/** everything mqlab may create in its data folder */
export const OWN_ENTRIES = [
  MARKER,
  'backend',
  'line',
  'nodes',
  'rabbitmq',
  'rabbitmq-c1',
  'rabbitmq-c2',
  'rabbitmq-c3',
  'postgres',
  'root',
  'root.tmp',
  'lab-times.json',
  'class.json',
  'secrets.json',
  'lock',
  'up-lock',
];

const entries = (home: string) => (fs.existsSync(home) ? fs.readdirSync(home) : []);
const foreign = (home: string) => entries(home).filter((e) => !OWN_ENTRIES.includes(e));

/** before `up` writes into HOME: create and mark it, or adopt an unmarked folder holding only mqlab's entries */
export function claimHome(home: string): void {
  if (fs.existsSync(path.join(home, MARKER))) return;
  const other = foreign(home);
  if (other.length) {
    throw new EnvError(
      `${home} is not mqlab's data folder and holds ${list(other)}`,
      'point MQLAB_HOME at a new or empty folder',
    );
  }
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(
    path.join(home, MARKER),
    `mqlab's data folder: \`mqlab down --volumes\` deletes only ${OWN_ENTRIES.join(', ')} here\n`,
  );
}

/** what `down --volumes` would delete; throws (deleting nothing) when HOME is not mqlab's or holds anything else */
export function deletable(home: string): string[] {
  if (!fs.existsSync(home)) return [];
  const other = foreign(home);
  if (other.length) {
    const whose = fs.existsSync(path.join(home, MARKER))
      ? 'holds files mqlab did not create'
      : `is not mqlab's data folder (no ${MARKER})`;
    throw new EnvError(
      `not deleting ${home}: it ${whose}: ${list(other)}; kept everything, nothing stopped`,
      'move those files out of it, or delete the folder yourself',
    );
  }
  return entries(home);
}

/** delete mqlab's entries (each with `remove`: a root must not be deleted through a mount), then the folder */
export async function deleteHome(home: string, remove: (dir: string) => Promise<void>): Promise<void> {
  for (const e of deletable(home)) await remove(path.join(home, e));
  if (fs.existsSync(home)) fs.rmdirSync(home);
}

const list = (names: string[]) =>
  names.slice(0, 5).join(', ') + (names.length > 5 ? ` and ${names.length - 5} more` : '');

export const BACKEND_FILE = 'backend';
export function recordedBackend(home: string): string | null {
  try {
    return fs.readFileSync(path.join(home, BACKEND_FILE), 'utf8').trim() || null;
  } catch {
    return null;
  }
}
export const recordBackend = (home: string, name: string) =>
  fs.writeFileSync(path.join(home, BACKEND_FILE), name + '\n');

/** the node count `mqlab up --nodes N` recorded in the data folder */
export const NODES_FILE = 'nodes';

/** how many RabbitMQ nodes `mqlab up` last started from this data folder (1 when it never said) */
export function recordedNodes(home: string): number {
  try {
    const n = Number(fs.readFileSync(path.join(home, NODES_FILE), 'utf8').trim());
    return Number.isInteger(n) && n > 0 ? n : 1;
  } catch {
    return 1;
  }
}
export const recordNodes = (home: string, n: number) => fs.writeFileSync(path.join(home, NODES_FILE), `${n}\n`);

/** the broker line `mqlab up --line` recorded in the data folder (lines.ts) */
export const LINE_FILE = 'line';
export function recordedLineName(home: string): string | null {
  try {
    return fs.readFileSync(path.join(home, LINE_FILE), 'utf8').trim() || null;
  } catch {
    return null;
  }
}
export const recordLine = (home: string, line: string) => fs.writeFileSync(path.join(home, LINE_FILE), `${line}\n`);
