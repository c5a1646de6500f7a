// schemas/evidence.schema.json is generated from the zod schema and must be kept current.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { evidenceJsonSchema } from "../../../src/evidence/index.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { sampleRecord } from "./sample-record.js";

const committed = JSON.parse(readFileSync(join(PROJECT_ROOT, "schemas", "evidence.schema.json"), "utf8"));

describe("evidence JSON Schema", () => {
  it("is current (regenerate with `npm run build && node scripts/generate-evidence-schema.mjs`)", () => {
    expect(committed).toEqual(evidenceJsonSchema());
  });

  it("accepts a valid record and rejects one without an outcome", () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(committed);
    expect(validate(sampleRecord())).toBe(true);
    const { outcome: _outcome, ...withoutOutcome } = sampleRecord();
    expect(validate(withoutOutcome)).toBe(false);
  });
});
