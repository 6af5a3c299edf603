/** Passwords never reach any output: every URL is printed through maskUrl. */
export function maskUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, raw.endsWith('/') ? '/' : '');
  } catch {
    return raw.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
  }
}

/** Replace every URL-embedded password in free text (error messages from drivers, logs). */
export function maskText(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]+):[^@\s/]*@/gi, '$1:***@');
}
