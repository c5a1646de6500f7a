// The CLI runs on Node 22 or newer (package.json "engines"; node:sqlite, the compile cache). On an older Node it
// says so in one line instead of failing inside a module it cannot load. (The startup runner, runner/, keeps
// its own wider range.)
export const MINIMUM_NODE_MAJOR = 22;

/** One line naming what to fix when `version` (process.version, `v20.11.1`) is too old; null when it will do. */
export function unsupportedNodeMessage(version: string): string | null {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (Number.isInteger(major) && major >= MINIMUM_NODE_MAJOR) return null;
  return `baton: needs Node ${MINIMUM_NODE_MAJOR} or newer, and this is Node ${version}; run it with Node ${MINIMUM_NODE_MAJOR} (in this repository, npx baton or npm run puts the project's Node 22 first)`;
}
