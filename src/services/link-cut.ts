/**
 * Cutting and healing the links between the nodes of mqlab's own cluster: an nftables table of the
 * set's own (named after its port offset), whose input chain drops every packet from one side's
 * addresses to the other's, both ways. Only addresses that the set's nodes' Erlang distribution
 * uses are named (defaults.ts nodeAddress): AMQP, management and the CLI tools on 127.0.0.1 are
 * never filtered, nor is anything else on the machine. Dropped, not refused: the nodes see silence,
 * as across a real partition, and their failure detector decides.
 *
 * The table goes with heal(), with the process (an exit handler), and with the next `mqlab up` /
 * `mqlab down` of the set (sweepLinkCut), so no rule outlives a run, an interrupt or a kill.
 */
import { execFileSync } from 'node:child_process';
import { execa } from 'execa';
import { BASE_PORTS, type Ports } from '../core/defaults.js';
import { EnvError } from '../core/errors.js';

/** the set's own nftables table (family inet): one per port offset, so two sets never touch each other's */
export const linkTable = (ports: Ports) => `mqlab_links_${ports.amqp - BASE_PORTS.amqp}`;

/** the nft script that replaces the set's table with drops between `side` and `rest`, both directions */
export function cutScript(table: string, side: readonly string[], rest: readonly string[]): string {
  const set = (a: readonly string[]) => `{ ${a.join(', ')} }`;
  return [
    `add table inet ${table}`,
    `delete table inet ${table}`,
    `table inet ${table} {`,
    '  chain input {',
    '    type filter hook input priority -10; policy accept;',
    `    ip saddr ${set(side)} ip daddr ${set(rest)} counter drop`,
    `    ip saddr ${set(rest)} ip daddr ${set(side)} counter drop`,
    '  }',
    '}',
    '',
  ].join('\n');
}

const nft = (args: string[], input?: string) =>
  execa('nft', args, { ...(input === undefined ? {} : { input }), reject: false });

/** why links cannot be cut here (null: they can): not root, no nft, or nft refusing a table */
export async function linkCutRefusal(ports: Ports): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'cutting links between nodes needs root (nftables rules): run as root';
  const probe = await nft(['--check', '-f', '-'], cutScript(linkTable(ports), ['127.0.0.1'], ['127.0.0.1'])).catch(
    (err: Error) => ({ exitCode: -1, stderr: err.message }),
  );
  // execa without reject: a program that is not there fails with no exit code (ENOENT)
  if (probe.exitCode === -1 || probe.exitCode === undefined || /ENOENT/.test(String(probe.stderr)))
    return 'cutting links between nodes needs nft: apt-get install -y nftables (as root; `mqlab up --nodes 3` does it)';
  if (probe.exitCode !== 0)
    return `nft refused a filter table: ${String(probe.stderr).trim().split('\n')[0]} (the kernel needs nf_tables)`;
  return null;
}

/** one cut of the set's links: the rules are in place until heal() */
export interface LinkCut {
  table: string;
  side: readonly string[];
  rest: readonly string[];
  /** packets the rules dropped so far (their counters) */
  dropped(): Promise<number>;
  /** remove the table (idempotent): true when it was there */
  heal(): Promise<boolean>;
}

/** drop everything between `side` and `rest` (node addresses of this set), both ways, until heal() */
export async function cutLinks(ports: Ports, side: readonly string[], rest: readonly string[]): Promise<LinkCut> {
  const table = linkTable(ports);
  const r = await nft(['-f', '-'], cutScript(table, side, rest));
  if (r.exitCode !== 0)
    throw new EnvError(
      `nft refused the link cut: ${String(r.stderr).trim().split('\n')[0]}`,
      'run as root with nftables',
    );
  const onExit = () => healSync(table);
  process.once('exit', onExit);
  return {
    table,
    side,
    rest,
    async dropped() {
      const out = await nft(['list', 'table', 'inet', table]);
      return [...String(out.stdout).matchAll(/packets (\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
    },
    heal() {
      process.removeListener('exit', onExit);
      return removeTable(table);
    },
  };
}

/** is the set's link-cut table there (a run that cut the links was killed)? false when not root */
export async function linkCutLeft(ports: Ports): Promise<boolean> {
  if (process.getuid?.() !== 0) return false;
  const r = await nft(['list', 'table', 'inet', linkTable(ports)]).catch(() => ({ exitCode: 1 }));
  return r.exitCode === 0;
}

async function removeTable(table: string): Promise<boolean> {
  const r = await nft(['delete', 'table', 'inet', table]).catch(() => ({ exitCode: 1 }));
  return r.exitCode === 0;
}

/** at process exit (synchronous): the table goes with mqlab, whatever ended it short of a SIGKILL */
function healSync(table: string): void {
  try {
    execFileSync('nft', ['delete', 'table', 'inet', table], { stdio: 'ignore' });
  } catch {
    /* gone already */
  }
}

/** `mqlab up` / `mqlab down`: remove a table an earlier run of this set left (a kill of mqlab); true when there was one */
export async function sweepLinkCut(ports: Ports): Promise<boolean> {
  if (process.getuid?.() !== 0) return false;
  return removeTable(linkTable(ports));
}
