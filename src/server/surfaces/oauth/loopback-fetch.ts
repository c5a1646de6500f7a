// A test seam for `baton serve` (BATON_SERVE_TEST_LOOPBACK_CLIENT_DOCUMENTS=1): the authorization server may fetch
// Client ID Metadata Documents from loopback hosts, which the library's guarded fetch refuses (SSRF). Only loopback
// URLs lose the guard; every other address keeps it. Tests serve the document over https with their own CA.
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

export const LOOPBACK_CLIENT_DOCUMENTS_ENV = "BATON_SERVE_TEST_LOOPBACK_CLIENT_DOCUMENTS";

export function fetchAllowingLoopback(base: typeof fetch = fetch): typeof fetch {
  return (url, init = {}) => {
    const target = new URL(url instanceof Request ? url.url : url);
    if (!LOOPBACK_HOSTS.has(target.hostname)) return base(url, init);
    const { dispatcher: _guarded, ...unguarded } = init as RequestInit & { dispatcher?: unknown };
    return base(url, unguarded);
  };
}
