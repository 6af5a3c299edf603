/**
 * What postgres.js is given for a URL. libpq reads a password from the query string
 * (?password=…); postgres.js would send it to the server as a startup parameter instead. mqlab
 * takes it as the password, as libpq does, and never passes it on as a parameter.
 */
export function pgCredentials(url: string): { url: string; password?: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { url };
  }
  const password = u.searchParams.get('password') ?? undefined;
  if (password === undefined) return { url };
  u.searchParams.delete('password');
  return u.password ? { url: u.toString() } : { url: u.toString(), password };
}
