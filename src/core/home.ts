/**
 * Where the local backend keeps its services' data when MQLAB_HOME does not say:
 * a git clone of mqlab keeps it in the clone (.mqlab/) — for whoever owns the clone (or root); an
 * installed package (npm exec, npx, a global install), or a clone another user owns (a student
 * logged in to the teacher's machine, running the teacher's copy), uses the per-user state folder,
 * $XDG_STATE_HOME/mqlab or ~/.local/state/mqlab — never the package folder, which for npx is npm's
 * cache, and never another user's data folder, which they could not write (its set lock: EACCES).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

interface HomeFacts {
  /** the package root (holds package.json, compose.yaml) */
  root: string;
  /** the root is a git clone (or worktree) of mqlab */
  isClone: boolean;
  env: NodeJS.ProcessEnv;
  userHome: string;
  /** the clone belongs to this user: they own its .mqlab/ (or, before it exists, the clone), or they are root */
  ownsClone?: boolean;
}

export function chooseHome({ root, isClone, env, userHome, ownsClone = true }: HomeFacts): string {
  if (env.MQLAB_HOME) return path.resolve(env.MQLAB_HOME);
  if (isClone && ownsClone) return path.join(root, '.mqlab');
  // the XDG spec: a relative XDG_STATE_HOME is invalid and is ignored
  const state =
    env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME)
      ? env.XDG_STATE_HOME
      : path.join(userHome, '.local', 'state');
  return path.join(state, 'mqlab');
}

/** a clone has .git (a directory, or a file in a worktree); an installed package never ships one */
const isGitClone = (root: string) => fs.existsSync(path.join(root, '.git'));

/** does the user `uid` own the clone's data folder (or the clone, while it has none)? root owns every one */
export function ownsClone(root: string, uid: number | undefined = process.getuid?.()): boolean {
  if (uid === undefined || uid === 0) return true;
  for (const p of [path.join(root, '.mqlab'), root]) {
    try {
      return fs.statSync(p).uid === uid;
    } catch {
      /* not there: the clone itself decides */
    }
  }
  return true;
}

export function defaultHome(root: string, env: NodeJS.ProcessEnv = process.env): string {
  const isClone = isGitClone(root);
  return chooseHome({
    root,
    isClone,
    env,
    userHome: env.HOME || os.homedir(),
    ownsClone: !env.MQLAB_HOME && isClone ? ownsClone(root) : true,
  });
}
