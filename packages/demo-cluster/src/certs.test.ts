import { describe, expect, it } from "vitest";
import { X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { generateDemoPki, writePki } from "./certs";

describe("demo PKI", () => {
  it("issues a CA, a server cert for localhost/127.0.0.1/::1 and a client cert, both signed by the CA", async () => {
    const pki = await generateDemoPki();
    const ca = new X509Certificate(pki.caPem);
    const server = new X509Certificate(pki.serverCertPem);
    const client = new X509Certificate(pki.clientCertPem);
    expect(ca.ca).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(server.ca).toBe(false);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(client.verify(ca.publicKey)).toBe(true);
    expect(server.checkHost("localhost")).toBe("localhost");
    expect(server.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(server.checkIP("::1")).toBeTruthy();
    expect(server.keyUsage).toContain("1.3.6.1.5.5.7.3.1");
    expect(client.keyUsage).toContain("1.3.6.1.5.5.7.3.2");
    expect(client.subject).toContain("CN=allocation-lens");
    expect(server.checkPrivateKey(await import("node:crypto").then((c) => c.createPrivateKey(pki.serverKeyPem)))).toBe(true);
    expect(client.checkPrivateKey(await import("node:crypto").then((c) => c.createPrivateKey(pki.clientKeyPem)))).toBe(true);
  });

  it("adds the DNS names it is given to the server certificate, and only those", async () => {
    const pki = await generateDemoPki(["svc-a.ns.svc", "svc-a.ns.svc.cluster.local"]);
    const server = new X509Certificate(pki.serverCertPem);
    expect(server.checkHost("svc-a.ns.svc")).toBe("svc-a.ns.svc");
    expect(server.checkHost("svc-a.ns.svc.cluster.local")).toBe("svc-a.ns.svc.cluster.local");
    expect(server.checkHost("localhost")).toBe("localhost");
    expect(server.checkHost("svc-b.ns.svc")).toBeUndefined();
  });

  it("writes the files and returns their paths", async () => {
    const pki = await generateDemoPki();
    const dir = await mkdtemp(path.join(os.tmpdir(), "pki-"));
    try {
      const p = await writePki(path.join(dir, "sub"), pki);
      expect(path.basename(p.ca)).toBe("ca.crt");
      expect(path.basename(p.serverCert)).toBe("tls.crt");
      expect(path.basename(p.serverKey)).toBe("tls.key");
      expect(path.basename(p.clientCert)).toBe("client.crt");
      expect(path.basename(p.clientKey)).toBe("client.key");
      expect(await readFile(p.clientKey, "utf8")).toBe(pki.clientKeyPem);
      expect((await stat(p.serverKey)).mode & 0o777).toBe(0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
