// Writes schemas/evidence.schema.json from the zod schema in src/evidence/schema.ts (run after a build:
// `npm run build && node scripts/generate-evidence-schema.mjs`). test/unit/evidence/schema.test.ts fails when
// the committed file is out of date.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { evidenceJsonSchema } = await import(join(root, "dist", "src", "evidence", "schema.js"));
const target = join(root, "schemas", "evidence.schema.json");
writeFileSync(target, `${JSON.stringify(evidenceJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target}`);
