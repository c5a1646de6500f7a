// Writes openapi/baton-ops.json from the built server (run `npm run build` first). A test fails when the
// committed file differs from what the code describes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildOpenApiDocument } from "../dist/src/server/openapi-document.js";

const target = join(import.meta.dirname, "..", "openapi", "baton-ops.json");
writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${target}`);
