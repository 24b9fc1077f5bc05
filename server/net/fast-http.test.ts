/**
 * FastHttpClient's TLS connections to a TA with mutual TLS, against a real HTTPS server on loopback: a TA that closes each
 * connection after its answer (as one with an idle timeout shorter than the poll interval does) gets a resumed session
 * on every new connection after the first (no certificate exchange, no signature with the client key), and the client
 * certificate is still the one the TA saw; a session is not offered again after a connection that failed.
 */
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDemoPki, type DemoPki } from "@allocation-lens/demo-cluster/internal/certs";
import { FastHttpClient } from "@/server/net/fast-http";

const limits = { source: "test", timeoutMs: 5000, maxBytes: 1024, hints: { tooLarge: "raise maxBytes", timeout: "raise the timeout", tls: "check the TLS files" } };

describe("FastHttpClient over mutual TLS", () => {
  let pki: DemoPki;
  let server: https.Server;
  let base: URL;
  /** per connection: whether the TA resumed a session, and the client certificate's subject it saw */
  const handshakes: { resumed: boolean; client: string }[] = [];
  let closeAfterAnswer = true;

  beforeAll(async () => {
    pki = await generateDemoPki(["localhost"]);
    server = https.createServer({ key: pki.serverKeyPem, cert: pki.serverCertPem, ca: pki.caPem, requestCert: true, rejectUnauthorized: true, minVersion: "TLSv1.2" }, (req, res) => {
      const socket = req.socket as TLSSocket;
      res.setHeader("Connection", closeAfterAnswer ? "close" : "keep-alive");
      res.end(JSON.stringify({ subject: String(socket.getPeerCertificate().subject?.CN ?? "") }));
    });
    server.on("secureConnection", (socket: TLSSocket) => handshakes.push({ resumed: socket.isSessionReused(), client: String(socket.getPeerCertificate().subject?.CN ?? "") }));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const client = () => new FastHttpClient(base, { ca: pki.caPem, cert: pki.clientCertPem, key: pki.clientKeyPem, servername: "localhost", minVersion: "TLSv1.2", maxVersion: "TLSv1.3" });

  it("resumes the TA's session on every new connection after the first, the client certificate unchanged", async () => {
    handshakes.length = 0;
    closeAfterAnswer = true;
    const c = client();
    try {
      const subjects: unknown[] = [];
      for (let i = 0; i < 4; i++) {
        const a = await c.get("/jobs", {}, limits);
        expect(a.status).toBe(200);
        subjects.push(JSON.parse(a.body.toString("utf8")).subject);
      }
      expect(handshakes.map((h) => h.resumed)).toEqual([false, true, true, true]);
      // the TA knows who asks on a resumed connection as on the first
      expect(new Set(handshakes.map((h) => h.client)).size).toBe(1);
      expect(handshakes[0].client).toBeTruthy();
      expect(subjects.every((s) => s === handshakes[0].client)).toBe(true);
    } finally {
      c.close();
    }
  });

  it("a keep-alive connection is reused as it is: one handshake for several answers", async () => {
    handshakes.length = 0;
    closeAfterAnswer = false;
    const c = client();
    try {
      for (let i = 0; i < 3; i++) expect((await c.get("/jobs", {}, limits)).status).toBe(200);
      expect(handshakes).toHaveLength(1);
    } finally {
      c.close();
      closeAfterAnswer = true;
    }
  });

  it("a client whose key does not match its certificate fails as a connection does, every time", async () => {
    const other = await generateDemoPki(["localhost"]);
    const c = new FastHttpClient(base, { ca: pki.caPem, cert: pki.clientCertPem, key: other.clientKeyPem, servername: "localhost" });
    try {
      for (let i = 0; i < 2; i++) await expect(c.get("/jobs", {}, limits)).rejects.toThrow(/key values mismatch|KEY_VALUES_MISMATCH/i);
    } finally {
      c.close();
    }
  });
});
