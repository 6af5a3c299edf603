/**
 * MQLAB_HOME is mqlab's data folder. mqlab marks it when it creates it, and `down --volumes`
 * deletes only what mqlab made there: never a folder that is not mqlab's or holds anything else.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EnvError } from '../core/errors.js';
import { foreignLink, isLink, SERVICE_LINKS } from './links.js';

/** the file a Debian root mqlab built holds (debian-root.ts READY) */
const ROOT_READY = '.mqlab-root';

export const MARKER = '.mqlab-data';
/** everything mqlab may create in its data folder */
const OWN_ENTRIES = [
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

/**
 * what `down --volumes` would delete; throws (deleting nothing) when HOME is not mqlab's (no marker:
 * only `up` adopts an unmarked folder, and marks it), holds anything else, holds a link mqlab did not
 * make (nothing is deleted through a link), or holds a Debian root with files mqlab did not put there
 */
export function deletable(home: string): string[] {
  if (!fs.existsSync(home)) return [];
  const refuse = (why: string, hint: string): never => {
    throw new EnvError(`not deleting ${home}: ${why}; kept everything, nothing stopped`, hint);
  };
  const other = foreign(home);
  if (!fs.existsSync(path.join(home, MARKER)))
    refuse(
      `it is not mqlab's data folder (no ${MARKER}): ${list(entries(home))}`,
      other.length
        ? 'delete the folder yourself if it is yours to delete'
        : 'if an older mqlab made it, `mqlab up` marks it as mqlab’s; else delete it yourself',
    );
  if (other.length)
    refuse(
      `it holds files mqlab did not create: ${list(other)}`,
      'move those files out of it, or delete the folder yourself',
    );
  for (const e of entries(home)) {
    const why = isLink(path.join(home, e)) ? foreignLink(home, e) : null;
    if (why)
      refuse(why, `remove the link yourself (rm ${path.join(home, e)}), then run \`mqlab down --volumes\` again`);
  }
  const strays = rootStrays(path.join(home, 'root'));
  if (strays.length)
    refuse(
      `its Debian root holds files mqlab did not put there: ${list(strays)}`,
      'move them out of the root, or delete the folder yourself',
    );
  return entries(home);
}

/**
 * what a user put into a Debian root that mqlab built (HOME/root): anything in its /home, in its /root
 * but the shell's dotfiles, and in /mqlab but the services' folders; a folder named root without the
 * root's ready marker is not one mqlab built (root.tmp, an unfinished copy, is)
 */
function rootStrays(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  if (!fs.existsSync(path.join(root, ROOT_READY))) return [`root (no ${ROOT_READY}: not a root mqlab built)`];
  const inside = (dir: string, keep: (name: string) => boolean) => {
    const at = path.join(root, dir);
    return fs.existsSync(at) && !isLink(at)
      ? fs
          .readdirSync(at)
          .filter((n) => !keep(n))
          .map((n) => `root/${dir}/${n}`)
      : [];
  };
  return [
    ...inside('home', () => false),
    ...inside('root', (n) => /^\.(bashrc|profile|ssh|cache|local|config)$/.test(n)),
    ...inside('mqlab', (n) => SERVICE_LINKS.test(n)),
  ];
}

/** delete mqlab's entries (a link: itself, after the folder outside it that mqlab made; a root: never through a mount), then the folder */
export async function deleteHome(
  home: string,
  remove: (dir: string) => Promise<void>,
  removeOutside: (service: string) => void,
): Promise<void> {
  for (const e of deletable(home)) {
    const p = path.join(home, e);
    if (isLink(p)) {
      removeOutside(e);
      fs.unlinkSync(p);
    } else await remove(p);
  }
  if (fs.existsSync(home)) fs.rmdirSync(home);
}

const list = (names: string[]) =>
  names.slice(0, 5).join(', ') + (names.length > 5 ? ` and ${names.length - 5} more` : '');

const BACKEND_FILE = 'backend';
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
const NODES_FILE = 'nodes';

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
const LINE_FILE = 'line';
export function recordedLineName(home: string): string | null {
  try {
    return fs.readFileSync(path.join(home, LINE_FILE), 'utf8').trim() || null;
  } catch {
    return null;
  }
}
export const recordLine = (home: string, line: string) => fs.writeFileSync(path.join(home, LINE_FILE), `${line}\n`);
