/**
 * The secrets of the run's URLs, remembered as literals so that every output channel can drop
 * them wherever they appear: printed by a driver, inside a malformed URL, in a child's stderr.
 * maskUrl/maskText hide a secret by its place in a URL; redactSecrets hides it by its value.
 */
import { maskText } from './urls.js';

const secrets = new Set<string>();
/** shorter values would mangle ordinary words; a URL's masked form hides them anyway */
const MIN_LENGTH = 4;

/** remember the password and every secret query value of `raw`, as written and decoded */
export function rememberSecrets(raw: string): void {
  for (const s of secretsOf(raw)) for (const v of [s, safeDecode(s)]) if (v.length >= MIN_LENGTH) secrets.add(v);
}

export function secretsOf(raw: string): string[] {
  const found: string[] = [];
  try {
    const u = new URL(raw);
    if (u.password) found.push(u.password);
    for (const [k, v] of u.searchParams)
      if (/pass|pwd|secret|token|auth|cred|key/i.test(k) && v) found.push(v, encodeURIComponent(v));
  } catch {
    // not a URL: whatever sits between the user name and the last '@' may be a password
  }
  const at = raw.lastIndexOf('@');
  if (at > 0) {
    const start = raw.indexOf('//') >= 0 && raw.indexOf('//') < at ? raw.indexOf('//') + 2 : 0;
    const colon = raw.indexOf(':', start);
    if (colon >= 0 && colon < at) found.push(raw.slice(colon + 1, at));
  }
  for (const m of raw.matchAll(/(?:^|[?&#])[^=&#?]*(?:pass|pwd|secret|token|auth|cred|key)[^=&#?]*=([^&#]+)/gi))
    if (m[1] !== undefined) found.push(m[1]);
  return found.filter(Boolean);
}

/** every remembered secret replaced by ***, and every URL masked */
export function redactSecrets(text: string): string {
  let out = maskText(text);
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) if (out.includes(s)) out = out.split(s).join('***');
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
