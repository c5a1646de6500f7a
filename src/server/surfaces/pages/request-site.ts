// Whether a POST to the sign-in pages was sent by this service's own page or by another site (pure), read from the
// headers browsers set and pages cannot: Fetch Metadata (`Sec-Fetch-Site`) first, `Origin` where a browser sends
// no Fetch Metadata. `same-site` is refused too: SameSite cookies travel between sibling hosts and ports of one
// site, so only `same-origin` proves the form was ours. `Origin: null` decides nothing (a page with
// `Referrer-Policy: no-referrer`, like ours, sends it for its own forms); a request with neither header (a
// script, an old browser) is left to the form's token, which a page on another site cannot know.
import { FETCH_SITE_HEADER, ORIGIN_HEADER } from "./wire.js";

export type RequestSite = "this-service" | "another-site";

/** `ownOrigins`: the origins this service answers as (its public URL's and the request's own). */
export function judgeRequestSite(
  headers: { get(name: string): string | null | undefined },
  ownOrigins: readonly string[],
): RequestSite {
  const fetchSite = headers.get(FETCH_SITE_HEADER)?.trim().toLowerCase();
  if (fetchSite) return fetchSite === "same-origin" || fetchSite === "none" ? "this-service" : "another-site";
  const origin = headers.get(ORIGIN_HEADER)?.trim();
  if (!origin || origin === "null") return "this-service";
  return ownOrigins.includes(origin.toLowerCase()) ? "this-service" : "another-site";
}
