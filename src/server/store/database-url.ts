// A PostgreSQL URL as it may be shown to an operator: the password (in the user part or a `password=`
// parameter) becomes `***`, so an error or log line that names the database never carries the credential.

const HIDDEN = "***";

export function redactDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL (a key=value string, a typo): nothing of it can be shown safely.
    return "(a database URL that does not parse)";
  }
  if (parsed.password) parsed.password = HIDDEN;
  for (const key of [...parsed.searchParams.keys()]) {
    if (key.toLowerCase() === "password") parsed.searchParams.set(key, HIDDEN);
  }
  // URLSearchParams encodes `*`; the redaction should read as written.
  return parsed.toString().replaceAll("%2A%2A%2A", HIDDEN);
}

/** Removes every secret the URL holds from `text` (a driver's message may quote its input). */
export function withoutUrlSecrets(text: string, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return text.replaceAll(url, HIDDEN);
  }
  const secrets = [parsed.password, decodeURIComponentSafely(parsed.password)];
  for (const [key, value] of parsed.searchParams) if (key.toLowerCase() === "password") secrets.push(value);
  let out = text.replaceAll(url, redactDatabaseUrl(url));
  for (const secret of secrets.filter((s) => s.length > 0)) out = out.replaceAll(secret, HIDDEN);
  return out;
}

function decodeURIComponentSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
