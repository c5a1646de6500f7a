// Which methods a path answers, from the composed app's own route list (hono's trie router, not a second
// matcher of ours): the 405 of a path asked with another method names them in `allow`.
import { TrieRouter } from "hono/router/trie-router";

export function allowedMethodsOf(
  routes: readonly { method: string; path: string }[],
): (path: string) => readonly string[] {
  const router = new TrieRouter<string>();
  for (const route of routes) if (route.method !== "ALL") router.add("ALL", route.path, route.method);
  return (path) => {
    const [matches] = router.match("ALL", path);
    return [...new Set(matches.map(([method]) => method))].sort();
  };
}
