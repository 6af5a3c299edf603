/**
 * Links in a data folder: mqlab makes one kind only, HOME/<service> → /var/tmp/mqlab-<id>/<service>
 * (the system backend's service folder when the service's account cannot enter HOME). mqlab reads,
 * writes and deletes nothing through any other link.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';

/** the data folder's entries the system backend may make a link of */
export const SERVICE_LINKS = /^(rabbitmq(-c\d+)?|postgres)$/;

/** where serviceDir puts a service's data when the service's account cannot enter HOME: /var/tmp/mqlab-<sha1(HOME)>/<service> */
export function outsideDir(home: string, service: string): string {
  const id = crypto.createHash('sha1').update(home).digest('hex').slice(0, 10);
  return path.join('/var/tmp', `mqlab-${id}`, service);
}

export const isLink = (p: string): boolean => {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
};

const lstat = (p: string): fs.Stats | null => {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
};

/**
 * why `dir` (where mqlab keeps a service's data outside HOME) is not mqlab's: a link, not a folder,
 * another user's, or writable by others; null when it is a real folder of this process's user
 * that only it may add to (or, with `mayBeMissing`, when it is not there at all)
 */
export function notOwnDir(dir: string, mayBeMissing = false): string | null {
  const st = lstat(dir);
  if (!st) return mayBeMissing ? null : `${dir} is missing`;
  if (st.isSymbolicLink()) return `${dir} is a link`;
  if (!st.isDirectory()) return `${dir} is not a folder`;
  if (st.uid !== process.getuid?.()) return `${dir} belongs to uid ${st.uid}`;
  if (st.mode & 0o022) return `${dir} is writable by others (mode ${(st.mode & 0o777).toString(8)})`;
  return null;
}

/**
 * why HOME/<entry>, a link, is not the one mqlab makes: another name, another target, or a target
 * folder someone else could have put there; null when it is mqlab's own (its target may be gone)
 */
export function foreignLink(home: string, entry: string): string | null {
  const target = fs.readlinkSync(path.join(home, entry));
  const expected = outsideDir(home, entry);
  if (!SERVICE_LINKS.test(entry) || target !== expected)
    return `${entry} is a link to ${target}: mqlab deletes nothing through a link it did not make`;
  const parent = notOwnDir(path.dirname(expected), true);
  if (parent) return `${entry} links to ${target}, but ${parent}`;
  const away = lstat(expected);
  if (away && (away.isSymbolicLink() || !away.isDirectory()))
    return `${entry} links to ${target}, which is ${away.isSymbolicLink() ? 'itself a link' : 'not a folder'}`;
  return null;
}
