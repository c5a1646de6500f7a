// Setup file of the postgres project (vitest.config.ts): after each test file, the schemas its `baton serve`
// children ran on are dropped, with the services a failed test left behind killed first, and then the spare
// schemas its tests gave back (migrated-schemas.ts).
import { afterAll } from "vitest";
import { dropSpareSchemas } from "./migrated-schemas.js";
import { killLeftoverServes } from "./serve.js";
import { dropPlaces } from "./serve-place.js";

afterAll(async () => {
  await killLeftoverServes();
  await dropPlaces();
  await dropSpareSchemas();
});
