// Setup file of the postgres project (vitest.config.ts): after each test file, the schemas its `baton serve`
// children ran on are dropped, with the services a failed test left behind killed first.
import { afterAll } from "vitest";
import { killLeftoverServes } from "./serve.js";
import { dropPlaces } from "./serve-place.js";

afterAll(async () => {
  await killLeftoverServes();
  await dropPlaces();
});
