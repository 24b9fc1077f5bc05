/**
 * Embedding behind sign-in, with a real oauth2-proxy (built by scripts/peers.mjs) in front of a second dashboard in
 * auth.mode proxy, as deploy/components/oauth2-proxy ships it: the proxy on 127.0.0.1 is the only trusted peer and the
 * dashboard believes X-Forwarded-User/-Email only. An iframe cannot send a bearer token, so a portal embeds /embed/<view>
 * through the proxy's session cookie.
 *
 * The portal is a page on http://localhost:<port>. The proxy reached as http://localhost:<port> is same-site with it (ports
 * do not make sites): the component's default SameSite=Lax cookie is sent to the frame, in Chromium's default settings.
 * Reached as http://127.0.0.1:<port> it is cross-site: the cookie must be `SameSite=None; Secure`, and is still a
 * third-party cookie, which Chromium sends only where the user allows third-party cookies (a profile setting; Playwright's
 * default contexts, like Incognito, block them, and oauth2-proxy cannot mark its cookie Partitioned). Both secure contexts.
 * oauth2-proxy signs in offline with an htpasswd file and its form (no identity provider round trip, so no
 * --skip-provider-button, which would send the browser to the provider instead of the form).
 *
 * Without the binary the tests are skipped with the reason, or fail where ALLOCATION_LENS_REQUIRE_PEERS=1 (CI).
 */
import { test, expect, type BrowserContext, type Page } from "@playwright/test";
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import { oauth2ProxyPath, requirePeers } from "../../scripts/peers.mjs";
import { freePort } from "@allocation-lens/test-support/ports";
import { waitForHttp } from "@allocation-lens/test-support/wait";

const BIN = oauth2ProxyPath();
const MISSING = fs.existsSync(BIN) ? null : `oauth2-proxy is not built at ${BIN} (npm test builds it: go install github.com/oauth2-proxy/oauth2-proxy/v7@v7.15.6)`;
const USER = "alice";
const PASSWORD = "wonderland-7";

test.describe("embedding behind sign-in through oauth2-proxy", () => {
  test.describe.configure({ mode: "serial", timeout: 120_000 });
  test.skip(Boolean(MISSING) && !requirePeers(), MISSING ?? "");

  const children: ChildProcess[] = [];
  const servers: http.Server[] = [];
  let tmp = "";
  let dashboard = "";
  /** SameSite=None; Secure: what a portal on another site needs */
  let proxy = "";
  /** the component's default SameSite=Lax: enough for same-site portals */
  let laxProxy = "";
  /** listed in embed.frameAncestors */
  let portal = "";
  /** not listed */
  let otherPortal = "";

  const waitForOk = (url: string, what: string, child: ChildProcess, ms = 90_000) => waitForHttp(url, { timeoutMs: ms, intervalMs: 200, child, what });

  function start(cmd: string, args: string[], env: Record<string, string | undefined>, name: string): ChildProcess {
    const child = spawn(cmd, args, { env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
    const log = fs.createWriteStream(path.join(tmp, `${name}.log`));
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    children.push(child);
    return child;
  }

  async function startProxy(port: number, sameSite: "none" | "lax"): Promise<string> {
    const child = start(
      BIN,
      [
        `--http-address=127.0.0.1:${port}`,
        `--upstream=${dashboard}/`,
        `--htpasswd-file=${path.join(tmp, "htpasswd")}`,
        "--display-htpasswd-form=true",
        "--client-id=allocation-lens-e2e",
        "--client-secret=unused-no-provider-round-trip",
        `--cookie-secret=${crypto.randomBytes(16).toString("hex")}`,
        "--email-domain=*",
        `--cookie-samesite=${sameSite}`,
        "--cookie-secure=true",
        "--cookie-httponly=true",
        // as deploy/components/oauth2-proxy/sidecar.yaml
        "--pass-user-headers=true",
        "--skip-auth-strip-headers=true",
        "--set-xauthrequest=false",
        "--silence-ping-logging=true",
      ],
      { PATH: process.env.PATH, HOME: tmp },
      `oauth2-proxy-${sameSite}`,
    );
    const url = `http://127.0.0.1:${port}`;
    await waitForOk(`${url}/ping`, `oauth2-proxy (${sameSite})`, child);
    return url;
  }

  /** A portal page on http://localhost:<port> whose iframe shows ?src=<url> (the embed, through one of the proxies). */
  async function startPortal(): Promise<string> {
    const server = http.createServer((req, res) => {
      const src = new URL(req.url ?? "/", "http://localhost").searchParams.get("src") ?? "about:blank";
      const attr = src.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html lang="en"><title>Portal</title><h1>Portal</h1><iframe id="lens" title="Allocation Lens" src="${attr}" width="900" height="600"></iframe></html>`);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://localhost:${(server.address() as net.AddressInfo).port}`;
  }

  /** `portalUrl` framing /embed/nodes through `proxyUrl` */
  const framing = (portalUrl: string, proxyUrl: string) => `${portalUrl}/?src=${encodeURIComponent(`${proxyUrl}/embed/nodes?cluster=legacy`)}`;
  /** the same proxy under the portal's host name: same-site with the portal */
  const sameSite = (proxyUrl: string) => proxyUrl.replace("//127.0.0.1:", "//localhost:");

  test.beforeAll(async () => {
    if (MISSING) throw new Error(`${MISSING}; ALLOCATION_LENS_REQUIRE_PEERS=1 makes a missing test peer a failure`);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "embed-auth-"));
    fs.writeFileSync(path.join(tmp, "htpasswd"), `${USER}:{SHA}${crypto.createHash("sha1").update(PASSWORD).digest("base64")}\n`);
    portal = await startPortal();
    otherPortal = await startPortal();

    // the e2e dashboard's clusters (global setup), behind the proxy: mode proxy as the oauth2-proxy component ships it
    const e2e = YAML.parse(fs.readFileSync(path.join(process.cwd(), "artifacts", "e2e-config.yaml"), "utf8"));
    const config = {
      clusters: e2e.clusters,
      history: { path: path.join(tmp, "history.sqlite") },
      auth: { mode: "proxy", trustedProxies: ["127.0.0.1/32"], userHeaders: ["X-Forwarded-User", "X-Forwarded-Email"] },
      embed: { frameAncestors: ["'self'", portal] },
    };
    const configFile = path.join(tmp, "config.yaml");
    fs.writeFileSync(configFile, YAML.stringify(config));
    const port = await freePort();
    const next = start(
      process.execPath,
      [path.join(process.cwd(), "node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1"],
      { ...process.env, ALLOCATION_LENS_CONFIG: configFile, NEXT_TELEMETRY_DISABLED: "1" },
      "dashboard",
    );
    dashboard = `http://127.0.0.1:${port}`;
    await waitForOk(`${dashboard}/api/readyz`, "the dashboard in proxy mode", next);
    [proxy, laxProxy] = await Promise.all([freePort().then((p) => startProxy(p, "none")), freePort().then((p) => startProxy(p, "lax"))]);
  });

  test.afterAll(async () => {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once("exit", () => resolve());
            c.kill("SIGTERM");
          }),
      ),
    );
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  async function signIn(page: Page, proxyUrl: string): Promise<void> {
    await page.goto(`${proxyUrl}/oauth2/sign_in`);
    await page.locator("#username").fill(USER);
    await page.locator("#password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    // through the proxy to the dashboard's overview: signed in
    await expect(page.getByRole("heading", { level: 1, name: "legacy" })).toBeVisible();
  }

  /** A browser profile whose user allows third-party cookies (chrome://settings/cookies), which off-the-record contexts lack. */
  async function allowingThirdPartyCookies(playwright: typeof import("playwright-core"), launchOptions: object): Promise<BrowserContext> {
    const dir = fs.mkdtempSync(path.join(tmp, "profile-"));
    fs.mkdirSync(path.join(dir, "Default"));
    fs.writeFileSync(path.join(dir, "Default", "Preferences"), JSON.stringify({ profile: { cookie_controls_mode: 0 } }));
    return playwright.chromium.launchPersistentContext(dir, { ...launchOptions, viewport: { width: 1280, height: 800 } });
  }

  const embedded = (page: Page) => page.frameLocator("#lens");
  const embedAnswer = (page: Page, proxyUrl: string) => page.waitForResponse((r) => r.url().startsWith(`${proxyUrl}/embed/nodes`));

  async function expectEmbedRendered(page: Page): Promise<void> {
    const frame = embedded(page);
    await expect(frame.getByRole("heading", { level: 1, name: "Nodes" })).toBeVisible();
    // the view's data came through the proxy too: its API calls from inside the frame carry the cookie
    await expect(frame.getByText(/legacy · \d+ nodes in \d+ zones?/)).toBeVisible();
    await expect(frame.getByText(/updated \d+ s ago/).first()).toBeVisible();
    await expect(frame.getByRole("navigation", { name: "Views" })).toHaveCount(0);
  }

  async function expectSignInForm(page: Page): Promise<void> {
    await expect(embedded(page).locator("#password")).toBeVisible();
    await expect(embedded(page).getByRole("heading", { name: "Nodes" })).toHaveCount(0);
  }

  test("without a session the portal's frame shows the proxy's sign-in form, never the embed", async ({ page }) => {
    const answer = embedAnswer(page, sameSite(laxProxy));
    await page.goto(framing(portal, sameSite(laxProxy)));
    expect((await answer).status()).toBe(403); // oauth2-proxy's sign-in page
    await expectSignInForm(page);
  });

  test("the dashboard believes only the user headers the proxy sets after sign-in", async () => {
    // through the proxy without a session, a forged X-Forwarded-User is stripped and the request never reaches the dashboard
    const viaProxy = await fetch(`${proxy}/api/v1/summary?cluster=legacy`, { headers: { "X-Forwarded-User": "mallory" }, redirect: "manual" });
    expect(viaProxy.status).toBe(403);
    expect(await viaProxy.text()).toContain("Sign in");
    // the header oauth2-proxy passes through from the client untouched names nobody here
    const direct = await fetch(`${dashboard}/api/v1/summary?cluster=legacy`, { headers: { "X-Auth-Request-User": "mallory" } });
    expect(direct.status).toBe(401);
    expect((await direct.json()).error.code).toBe("unauthenticated");
  });

  test("same-site portal: the component's SameSite=Lax session cookie shows /embed/nodes in the frame, default browser settings", async ({ page, context }) => {
    const proxyUrl = sameSite(laxProxy);
    await signIn(page, proxyUrl);
    expect((await context.cookies(proxyUrl)).find((c) => c.name === "_oauth2_proxy")).toMatchObject({ sameSite: "Lax", secure: true, httpOnly: true });
    const answer = embedAnswer(page, proxyUrl);
    await page.goto(framing(portal, proxyUrl));
    const res = await answer;
    expect(res.status()).toBe(200);
    expect(res.headers()["content-security-policy"]).toContain(`frame-ancestors 'self' ${portal}`);
    await expectEmbedRendered(page);
  });

  test("cross-site portal: the SameSite=None; Secure session cookie shows /embed/nodes where third-party cookies are allowed", async ({ playwright, launchOptions }) => {
    const context = await allowingThirdPartyCookies(playwright, launchOptions);
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await signIn(page, proxy);
      expect((await context.cookies(proxy)).find((c) => c.name === "_oauth2_proxy")).toMatchObject({ sameSite: "None", secure: true, httpOnly: true });
      const answer = embedAnswer(page, proxy);
      await page.goto(framing(portal, proxy));
      expect((await answer).status()).toBe(200);
      await expectEmbedRendered(page);
    } finally {
      await context.close();
    }
  });

  test("cross-site portal: a SameSite=Lax cookie is not sent to the frame even where third-party cookies are allowed", async ({ playwright, launchOptions }) => {
    const context = await allowingThirdPartyCookies(playwright, launchOptions);
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await signIn(page, laxProxy);
      const answer = embedAnswer(page, laxProxy);
      await page.goto(framing(portal, laxProxy));
      expect((await answer).status()).toBe(403);
      await expectSignInForm(page);
    } finally {
      await context.close();
    }
  });

  test("cross-site portal: where third-party cookies are blocked (Chromium's default here) the frame is not signed in", async ({ page }) => {
    await signIn(page, proxy);
    const answer = embedAnswer(page, proxy);
    await page.goto(framing(portal, proxy));
    expect((await answer).status()).toBe(403);
    await expectSignInForm(page);
  });

  test("signed in, a portal not in embed.frameAncestors gets its frame refused by Chromium (CSP frame-ancestors)", async ({ page }) => {
    const proxyUrl = sameSite(laxProxy);
    await signIn(page, proxyUrl);
    const answer = embedAnswer(page, proxyUrl);
    await page.goto(framing(otherPortal, proxyUrl));
    const res = await answer;
    // served (the session is good, the cookie was sent): the browser, not the server, refuses the frame
    expect(res.status()).toBe(200);
    expect(res.headers()["content-security-policy"]).toContain(`frame-ancestors 'self' ${portal}`);
    expect(res.headers()["content-security-policy"]).not.toContain(otherPortal);
    // Chromium replaces the refused document with its error page
    const child = () => page.frames().find((f) => f.parentFrame() === page.mainFrame())?.url();
    await expect.poll(child).toMatch(/^chrome-error:/);
    await expect(embedded(page).getByRole("heading", { name: "Nodes" })).toHaveCount(0);
    await expect(page.getByRole("heading", { level: 1, name: "Portal" })).toBeVisible();
  });
});
