/**
 * Passwords never reach any output. A URL is printed through maskUrl, free text (a driver's error
 * message) through maskText, and every output channel passes through redactSecrets (secrets.ts).
 *
 * What a client accepts as a secret, and what is masked:
 * - userinfo: amqp://app:PASSWORD@host, postgres://app:PASSWORD@host (percent-encoded or not);
 * - query parameters: ?password=, ?sslpassword=, ?pass=, ?passwd= (libpq, postgres.js) and any key
 *   naming a secret (token, secret, auth, credentials, key);
 * - a URL that does not parse still shows no secret: everything before its last '@' after the user
 *   name is masked, and so is every query value after a secret key.
 */
const SECRET_KEY = /pass|pwd|secret|token|auth|cred|key/i;
const MASK = '***';

export function maskUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return maskMalformed(raw);
  }
  // a string that parses but only by accident (app:secret@host parses as scheme "app:") has no '//'
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) return maskMalformed(raw);
  // an '@' past the host: a password with an unencoded '/', '?' or '#' that the parser cut apart
  if (/@|%40/i.test(u.pathname + u.search + u.hash)) return maskMalformed(raw);
  if (u.password) u.password = MASK;
  if (u.search) u.search = maskQuery(u.search.slice(1));
  if (u.hash) u.hash = maskQuery(u.hash.slice(1));
  return u.toString().replace(/\/$/, raw.endsWith('/') ? '/' : '');
}

/** key=value&key=value with the value of every secret key masked (keys compared decoded) */
function maskQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      return SECRET_KEY.test(safeDecode(pair.slice(0, eq))) ? `${pair.slice(0, eq)}=${MASK}` : pair;
    })
    .join('&');
}

function maskMalformed(raw: string): string {
  const q = raw.search(/[?#]/);
  // the userinfo may itself hold '?', '#' or '/': mask up to the last '@', wherever it is
  const at = raw.lastIndexOf('@');
  let out = raw;
  if (at >= 0) {
    const start = raw.indexOf('//') >= 0 && raw.indexOf('//') < at ? raw.indexOf('//') + 2 : 0;
    const colon = raw.indexOf(':', start);
    const userEnd = colon >= 0 && colon < at ? colon : at;
    out = `${raw.slice(0, userEnd)}:${MASK}${raw.slice(at)}`;
    if (q >= 0 && q < at) return out; // the query was inside the masked part
  }
  const q2 = out.search(/[?#]/);
  return q2 < 0 ? out : out.slice(0, q2 + 1) + maskQuery(out.slice(q2 + 1).replace(/#/g, '&'));
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** Mask every URL and every key=secret pair inside free text (error messages from drivers, logs). */
export function maskText(text: string): string {
  return text
    .replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"<>]+/gi, (url) => {
      const trail = /[.,;:)\]'"]+$/.exec(url)?.[0] ?? '';
      return maskUrl(url.slice(0, url.length - trail.length)) + trail;
    })
    .replace(/\b(password|passwd|pwd|sslpassword)=(?!\*\*\*)[^\s&"']+/gi, `$1=${MASK}`);
}
