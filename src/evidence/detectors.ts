// Token formats recognised by pattern (no known value needed). Each detector names cheap anchors for the
// sampling scanner and a regular expression that verifies a candidate where an anchor was seen.
import { caseVariants, GRAM, SAMPLE_STEP } from "./anchor.js";
import { isReference, looksGeneratedValue, shannonBitsPerChar } from "./entropy.js";

export interface Detector {
  kind: string;
  anchors: string[];
  /**
   * `sticky` regexes (flag y) run at the match start the anchor implies; `window` regexes (flag g) run over
   * `back` characters before and `forward` after the anchor, for anchors that sit inside the match.
   */
  mode: "sticky" | "window";
  regex: RegExp;
  back?: number;
  forward?: number;
  /** Window mode: also take matches that start after the anchor (e.g. `-u user:pass` after `curl `). */
  following?: boolean;
  /** Redact only this capture group (needs flag d); otherwise the whole match. */
  group?: number;
  accept?: (value: string, match: RegExpExecArray) => boolean;
  /** A cheap look at the text from the anchor point before the regular expression runs. */
  precheck?: (text: string, point: number) => boolean;
  /**
   * Also look for the anchors base64-encoded and scan what such runs decode to (default true). Off where the
   * encoded anchor would be too unselective to index (a short anchor followed by broad classes).
   */
  encoded?: boolean;
}

/** After `://`: is there a `:` and then an `@` before the authority ends? (Most URLs have no userinfo.) */
function hasUserinfoPassword(text: string, point: number): boolean {
  let colon = false;
  const end = Math.min(text.length, point + 3 + 512);
  for (let i = point + 3; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x40) return colon; // @
    if (c === 0x3a)
      colon = true; // :
    else if (
      c <= 0x20 ||
      c === 0x2f ||
      c === 0x3f ||
      c === 0x23 ||
      c === 0x22 ||
      c === 0x27 ||
      c === 0x3c ||
      c === 0x3e
    ) {
      return false; // whitespace / ? # " ' < >
    }
  }
  return false;
}

/**
 * Keyword anchors need SAMPLE_STEP + 3 positions: short keywords get any character after them first (their own
 * last letters are more telling than a space before them), then before.
 */
function padKeyword(word: string): string {
  const missing = SAMPLE_STEP + GRAM - 1 - word.length;
  if (missing <= 0) return word;
  return `${"{A}".repeat(missing - 1)}^${word}{A}`;
}

const notPlaceholder = (value: string) => shannonBitsPerChar(value) >= 3;

/** Words whose assignments hold secrets; identifiers ending like the exclusions hold names and ids instead. */
const KEYWORDS = ["secret", "token", "passwd", "password", "apikey", "api_key", "api-key", "_auth", "-auth"];
const KEYWORD_EXCLUDED_SUFFIX =
  /(?:id|ids|name|names|version|url|uri|path|file|type|length|count|ttl|expiry|expires|at)$/i;

/** `name = value` where the name says secret: the value must look generated, and the name must not be an id. */
function acceptAssignedValue(value: string, match: RegExpExecArray): boolean {
  return !KEYWORD_EXCLUDED_SUFFIX.test(match[1] ?? "") && looksGeneratedValue(value);
}

export const DETECTORS: readonly Detector[] = [
  {
    kind: "github_token",
    anchors: ["{A}{B}^gh[pousr]_{W}"],
    mode: "sticky",
    regex: /gh[pousr]_([A-Za-z0-9_]{30,255}(?:\.[A-Za-z0-9_-]{4,}){0,2})/dy,
    accept: (value) => notPlaceholder(value.slice(4)),
  },
  {
    kind: "github_token",
    anchors: ["github_pat_"],
    mode: "sticky",
    regex: /github_pat_[A-Za-z0-9_]{22,255}/y,
  },
  { kind: "gitlab_token", anchors: ["glpat-{T}"], mode: "sticky", regex: /glpat-[A-Za-z0-9_-]{20,}/y },
  {
    kind: "aws_access_key_id",
    anchors: [
      "{B}^A[KBS]IA{U}{U}",
      "{B}^ACCA{U}{U}",
      "{A}{B}^A3T{U}{U}",
      "{B}^A[GI][PD]A{U}{U}",
      "{B}^AROA{U}{U}",
      "{B}^AN[PV]A{U}{U}",
    ],
    mode: "sticky",
    regex: /(?:A3T[A-Z0-9]|AKIA|ABIA|ASIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}(?![A-Za-z0-9])/y,
  },
  {
    kind: "slack_token",
    anchors: ["{B}^xox[abposrce]-{W}", "{B}^xapp-{W}"],
    mode: "sticky",
    regex: /(?:xox[abposrce]|xapp)-[A-Za-z0-9-]{10,}/y,
  },
  {
    kind: "slack_webhook",
    anchors: ["hooks.slack.com/"],
    mode: "sticky",
    regex: /hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9_/]{20,}/y,
  },
  {
    kind: "stripe_key",
    anchors: ["[sr]k_live_", "[sr]k_test_"],
    mode: "sticky",
    regex: /[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/y,
  },
  {
    kind: "openai_api_key",
    anchors: ["T3BlbkFJ"],
    mode: "window",
    back: 220,
    forward: 220,
    regex: /sk-(?:[a-z]+-)?[A-Za-z0-9_-]{8,200}T3BlbkFJ[A-Za-z0-9_-]{8,200}/g,
  },
  {
    kind: "openai_api_key",
    anchors: ["sk-proj-", "sk-svcacct-", "sk-admin-"],
    mode: "sticky",
    regex: /sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}/y,
  },
  {
    kind: "anthropic_api_key",
    anchors: ["sk-ant-"],
    mode: "sticky",
    regex: /sk-ant-[a-z]+[0-9]{2}-[A-Za-z0-9_-]{93}AA(?![A-Za-z0-9_-])/y,
  },
  {
    kind: "google_api_key",
    anchors: ["{A}{B}^AIza{T}"],
    mode: "sticky",
    regex: /AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/y,
  },
  {
    kind: "npm_token",
    anchors: ["{A}{B}^npm_{W}"],
    mode: "sticky",
    regex: /npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/y,
  },
  { kind: "baton_token", anchors: ["{A}{B}^btn_{T}"], mode: "sticky", regex: /btn_[A-Za-z0-9_-]{16,}/y },
  {
    kind: "jwt",
    anchors: ["{A}{B}^eyJ{W}{W}", "{B}^ewogIC"],
    mode: "sticky",
    // A JWT is base64url already; encoded again it is found by the Authorization or Bearer text around it.
    encoded: false,
    regex: /(?:eyJ|ewog)[A-Za-z0-9_-]{10,}={0,2}\.[A-Za-z0-9_-]{10,}={0,2}(?:\.[A-Za-z0-9_-]{10,}={0,2})?/y,
    accept: (value) => /"(?:alg|typ|kid)"/.test(decodeBase64Url(value.slice(0, value.indexOf(".")))),
  },
  {
    kind: "private_key",
    anchors: ["-----BEGIN"],
    mode: "sticky",
    regex:
      /-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)/y,
  },
  {
    kind: "url_password",
    anchors: ["{S}{S}^://{I}{I}"],
    mode: "sticky",
    // `://` and two userinfo classes, encoded, would put about 20,000 grams in the index for every URL.
    encoded: false,
    precheck: hasUserinfoPassword,
    regex: /:\/\/[^\s:@/?#"'<>]*:([^\s@/?#"'<>]+)@(?=[A-Za-z0-9[])/dy,
    group: 1,
    accept: (value) => !isReference(value),
  },
  {
    kind: "authorization_header",
    anchors: [
      ...caseVariants("authorization").map((w) => w.slice(1)),
      ...caseVariants("bearer "),
      "Basic {T}",
    ],
    mode: "window",
    back: 1,
    forward: 600,
    regex:
      /(?:authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest)\s+)?|(?:bearer|basic)\s+)([^\s"',;)]{8,})/dgi,
    group: 1,
    accept: (value) => !isReference(value),
  },
  {
    kind: "basic_auth",
    anchors: ["{A}curl {A}", "--user "],
    mode: "window",
    following: true,
    back: 2,
    forward: 600,
    regex: /(?:\s-u|--user)\s*["']?[^\s"':]+:([^\s"']+)/dg,
    group: 1,
    accept: (value) => !isReference(value) && value.length >= 4,
  },
  {
    kind: "secret_assignment",
    anchors: KEYWORDS.flatMap(caseVariants).map(padKeyword),
    mode: "window",
    back: 0,
    forward: 600,
    regex:
      /(?:secret|token|passwd|password|api[_-]?key|[_-]auth)([A-Za-z0-9_.-]*)["']?\s*(?:[:=]|:=|=>|,)\s*(?:["']|b["'])?([^\s"',;`]{8,})/dgi,
    group: 2,
    accept: acceptAssignedValue,
  },
];

function decodeBase64Url(text: string): string {
  try {
    return atob(text.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, ""));
  } catch {
    return "";
  }
}
