// schemas/evidence.schema.json is generated from the zod schema and must be kept current.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { evidenceJsonSchema } from "../../../src/evidence/index.js";
import { createSchemaValidator } from "../../helpers/ajv.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { sampleRecord } from "./sample-record.js";

const committed = JSON.parse(readFileSync(join(PROJECT_ROOT, "schemas", "evidence.schema.json"), "utf8"));

describe("evidence JSON Schema", () => {
  it("is current (regenerate with `npm run build && node scripts/generate-evidence-schema.mjs`)", () => {
    expect(committed).toEqual(evidenceJsonSchema());
  });

  it("accepts a valid record and rejects one without an outcome", () => {
    const validate = createSchemaValidator().compile(committed);
    expect(validate(sampleRecord())).toBe(true);
    const { outcome: _outcome, ...withoutOutcome } = sampleRecord();
    expect(validate(withoutOutcome)).toBe(false);
  });

  it("checks the date-time format rather than ignoring it with a warning", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const validate = createSchemaValidator().compile(committed);
      expect(warn).not.toHaveBeenCalled();
      const format = createSchemaValidator().compile({ type: "string", format: "date-time" });
      expect(format("2026-11-22T05:00:00.000Z")).toBe(true);
      expect(format("2026-13-45T99:00:00Z")).toBe(false);
      expect(validate({ ...sampleRecord(), startedAt: "yesterday" })).toBe(false);
    } finally {
      warn.mockRestore();
    }
  });
});
