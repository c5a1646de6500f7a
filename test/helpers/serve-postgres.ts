// `baton serve --database-url` on a given schema URL: startServe (serve.ts) with the PostgreSQL engine, kept under
// this name for the suites that start several instances on one schema. New suites call startServe directly:
// `startServe({ databaseUrl: schemaUrl(schema), secretKeyFile, workDir })`.
import { type ServeHandle, startServe } from "./serve.js";
import { schemaUrl } from "./serve-place.js";

export { schemaUrl };
export type PostgresServe = ServeHandle;

export function startPostgresServe(options: {
  databaseUrl: string;
  secretKeyFile: string;
  workDir: string;
  seed?: string;
  args?: string[];
  env?: Record<string, string>;
}): Promise<PostgresServe> {
  const { databaseUrl, secretKeyFile, workDir, seed, args, env } = options;
  return startServe({
    engine: "postgres",
    databaseUrl,
    secretKeyFile,
    workDir,
    ...(seed ? { seed } : {}),
    ...(args ? { args } : {}),
    ...(env ? { env } : {}),
  });
}
