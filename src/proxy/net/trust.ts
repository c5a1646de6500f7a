// Trust bundles: Node's root certificates plus extra PEM certificates.
import { rootCertificates } from "node:tls";

export function splitPem(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

export function tlsRootsWith(extraPem: string): string[] {
  return [...rootCertificates, ...splitPem(extraPem)];
}
