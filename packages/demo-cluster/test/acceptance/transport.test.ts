/**
 * Transport of the demo TAs, per flavor (docs/target-allocator.md). The cloudwatch TA is HTTPS only, TLS 1.3 minimum, client
 * certificate required, and serves /scrape_configs secrets in clear over that TLS; the upstream TA serves plain HTTP with
 * secrets redacted to `<secret>`.
 */
import https from "node:https";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECRET_MARKER, startDemo, taGet, tlsGet, type Demo, type TaInfo } from "./harness";

/** Every string value in a JSON value. */
const strings = (v: unknown): string[] =>
  typeof v === "string" ? [v] : Array.isArray(v) ? v.flatMap(strings) : v && typeof v === "object" ? Object.values(v).flatMap(strings) : [];

describe("cloudwatch flavor: mTLS, TLS 1.3", () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo(["--nodes", "3"]);
  });
  afterAll(async () => demo?.stop());

  const tas = () => Object.entries(demo.info.targetAllocators) as [string, TaInfo][];

  it("serves a client with the demo's certificate over TLS 1.3, for both roles", async () => {
    expect(tas().map(([r]) => r).sort()).toEqual(["cluster-scraper", "per-node"]);
    for (const [role, ta] of tas()) {
      expect(ta.url, role).toMatch(/^https:\/\//);
      const a = await tlsGet(ta, "/jobs");
      expect(a.status, role).toBe(200);
      expect(a.protocol, role).toBe("TLSv1.3");
      expect(Object.keys(a.json<Record<string, unknown>>()).length, role).toBeGreaterThan(0);
      expect((await tlsGet(ta, "/livez")).status).toBe(200);
    }
  });

  it("refuses a client without a certificate (no HTTP answer)", async () => {
    for (const [role, ta] of tas()) {
      const err = await tlsGet(ta, "/jobs", { withCert: false }).then(
        (a) => new Error(`answered ${a.status} without a client certificate (${role})`),
        (e: Error) => e,
      );
      expect(err.message, role).not.toMatch(/^answered/);
      // with TLS 1.3 the server's alert arrives after the client's handshake: certificate required, or a reset
      expect((err as NodeJS.ErrnoException).code ?? err.message, role).toMatch(/ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED|ECONNRESET|EPIPE|socket hang up|certificate/i);
    }
  });

  it("refuses a client limited to TLS 1.2 even with the certificate", async () => {
    const ta = demo.info.targetAllocators["per-node"]!;
    await expect(tlsGet(ta, "/jobs", { maxVersion: "TLSv1.2" })).rejects.toThrow();
  });

  it("refuses a plain-HTTP request", async () => {
    const ta = demo.info.targetAllocators["per-node"]!;
    const plain = ta.url.replace(/^https:/, "http:");
    const r = await fetch(`${plain}/jobs`, { signal: AbortSignal.timeout(3000) }).then(
      (r) => r.status,
      () => "refused",
    );
    expect(r === "refused" || (typeof r === "number" && r >= 400)).toBe(true);
  });

  it("does not trust a server the demo CA did not sign (the client verifies the TA)", async () => {
    const ta = demo.info.targetAllocators["per-node"]!;
    const err = await new Promise<Error | null>((resolve) => {
      const req = https.request(new URL("/jobs", ta.url), {
        agent: false,
        cert: fs.readFileSync(ta.cert!),
        key: fs.readFileSync(ta.key!),
        timeout: 3000,
      }); // no `ca`: Node's default roots
      req.on("response", () => resolve(null));
      req.on("error", resolve);
      req.end();
    });
    expect(err).not.toBeNull();
  });

  it("/scrape_configs over mTLS carries the fake credential in clear", async () => {
    const a = await tlsGet(demo.info.targetAllocators["per-node"]!, "/scrape_configs");
    expect(a.status).toBe(200);
    const values = strings(a.json());
    expect(values.some((v) => v.includes(SECRET_MARKER))).toBe(true);
    expect(values).not.toContain("<secret>");
  });
});

describe("upstream flavor: plain HTTP, redacted secrets", () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo(["--flavor", "upstream", "--nodes", "3"]);
  });
  afterAll(async () => demo?.stop());

  it("serves plain HTTP and /scrape_configs reads <secret>, never the credential", async () => {
    const ta = demo.info.targetAllocators["per-node"]!;
    expect(ta.url).toMatch(/^http:\/\//);
    const jobs = await taGet(ta, "/jobs");
    expect(jobs.status).toBe(200);
    expect(Object.keys(jobs.json<Record<string, unknown>>()).length).toBeGreaterThan(0);
    const a = await taGet(ta, "/scrape_configs");
    expect(a.status).toBe(200);
    const configs = a.json<Record<string, unknown>>();
    expect(Object.keys(configs).length).toBeGreaterThan(0);
    // Go's JSON escapes < and >: compare decoded values, and the raw body for the marker
    const values = strings(configs);
    expect(values).toContain("<secret>");
    expect(values.filter((v) => v.includes(SECRET_MARKER))).toEqual([]);
    expect(a.body).not.toContain(SECRET_MARKER);
  });
});
