// Every time on a dashboard page, in the pages' one form (format.ts): UTC to the minute with the zone, the ISO
// value in `datetime` and `title`. The same on first render and in the polling answers.
import { renderWhen } from "../format.js";
import type { Html } from "../html.js";

export const renderTime = (iso: string | null | undefined): Html => renderWhen(iso);
