/**
 * Security headers of every answer: a strict Content-Security-Policy with a per-request nonce (Next.js puts it on its own
 * scripts when it finds `'nonce-…'` in the request's CSP header; the theme script of app/layout.tsx reads it from
 * `x-nonce`), `frame-ancestors` from the configuration so that portals may embed the views, no X-Frame-Options (it would
 * forbid embedding whatever frame-ancestors says), nosniff and a Referrer-Policy.
 */

export const DEFAULT_FRAME_ANCESTORS = ["'self'"] as const;

/** A CSP source expression allowed in frame-ancestors: 'self', 'none', a scheme (https:), or a host source. */
export const FRAME_ANCESTOR_PATTERN = /^(?:'self'|'none'|\*|[a-z][a-z0-9+.-]*:|(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::(?:\d{1,5}|\*))?(?:\/[A-Za-z0-9._~%!$&()*+=:@/-]*)?)$/;

export interface CspOptions {
  nonce: string;
  frameAncestors: readonly string[];
  /** next dev needs 'unsafe-eval' (React's dev tooling); never in production */
  dev?: boolean;
}

export function contentSecurityPolicy({ nonce, frameAncestors, dev = false }: CspOptions): string {
  const ancestors = frameAncestors.length ? frameAncestors : DEFAULT_FRAME_ANCESTORS;
  if (ancestors.includes("'none'") && ancestors.length > 1) throw new Error("'none' cannot be combined with other frame-ancestors");
  for (const a of ancestors) if (!FRAME_ANCESTOR_PATTERN.test(a)) throw new Error(`not a CSP source expression: ${JSON.stringify(a)}`);
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(nonce)) throw new Error("the nonce must be at least 16 base64 characters");
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    // React's style={} attributes and Next's inline style tags: styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    `frame-ancestors ${ancestors.join(" ")}`,
  ].join("; ");
}

/** The headers besides the CSP, on every answer. */
export const STATIC_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
};

export function newNonce(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}
