// The encodings under which a known secret value can show up in output: as is, URL-encoded, JSON-escaped and
// base64 (standard and URL-safe) at each of the three byte alignments inside a longer base64 text.

/** Values shorter than this are never treated as secrets: masking them everywhere reveals them and ruins logs. */
export const MIN_SECRET_LENGTH = 8;

export interface SecretForm {
  text: string;
  /** Base64 forms cover only the characters the secret alone determines; a hit widens over the partial ones. */
  base64: boolean;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function encodeBase64(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out +=
      B64.charAt(n >>> 18) + B64.charAt((n >>> 12) & 63) + B64.charAt((n >>> 6) & 63) + B64.charAt(n & 63);
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    out += B64.charAt(n >>> 18) + B64.charAt((n >>> 12) & 63);
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += B64.charAt(n >>> 18) + B64.charAt((n >>> 12) & 63) + B64.charAt((n >>> 6) & 63);
  }
  return out;
}

/** The base64 characters fully determined by `bytes` when they start `align` bytes into a 3-byte group. */
export function base64Core(bytes: Uint8Array, align: 0 | 1 | 2): string {
  const padded = new Uint8Array(bytes.length + align);
  padded.set(bytes, align);
  const encoded = encodeBase64(padded);
  const first = Math.ceil((8 * align) / 6);
  const end = Math.floor((8 * (align + bytes.length)) / 6);
  return encoded.slice(first, end);
}

function percentEncodings(value: string): string[] {
  let uri: string;
  try {
    uri = encodeURIComponent(value);
  } catch {
    return []; // lone surrogates cannot be URL-encoded, so they cannot appear that way either
  }
  const forms = [uri, uri.replace(/%20/g, "+"), uri.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())];
  // Encoders that leave the sub-delimiters alone (RFC 3986 userinfo, curl, Python's quote with safe chars).
  forms.push(uri.replace(/%(21|24|26|27|28|29|2A|2B|2C|3B|3D|3A|40)/g, (e) => decodeURIComponent(e)));
  return forms;
}

/** Every distinct form of `value` worth searching for; empty when the value is too short to be a secret. */
export function encodeSecretForms(value: string): SecretForm[] {
  if (value.length < MIN_SECRET_LENGTH) return [];
  const seen = new Set<string>();
  const forms: SecretForm[] = [];
  const add = (text: string, base64: boolean) => {
    if (text.length < MIN_SECRET_LENGTH || seen.has(text)) return;
    seen.add(text);
    forms.push({ text, base64 });
  };
  add(value, false);
  for (const form of percentEncodings(value)) add(form, false);
  add(JSON.stringify(value).slice(1, -1), false);
  const bytes = new TextEncoder().encode(value);
  for (const align of [0, 1, 2] as const) {
    const core = base64Core(bytes, align);
    add(core, true);
    add(core.replace(/\+/g, "-").replace(/\//g, "_"), true);
  }
  return forms;
}
