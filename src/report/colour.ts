/**
 * Colour or not, decided once: --color / --no-color win; then FORCE_COLOR (as Node and chalk read
 * it: 0/false = off, any other value = on); then NO_COLOR, only when non-empty (no-color.org);
 * else colour on a TTY whose TERM is not "dumb".
 */
export function useColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env, flag?: boolean): boolean {
  if (flag !== undefined) return flag;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !['0', 'false'].includes(force.toLowerCase());
  if (env.NO_COLOR) return false;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}
