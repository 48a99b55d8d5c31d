// https through the pinned lookup: the socket goes to the checked address while SNI and
// certificate verification use the URL's host name. Certificates are minted per run with the
// system's openssl (a self-signed leaf for api.test, loopback only). Without openssl the suite
// is skipped (its name says why) — except in CI (CI or AIRLOCK_REQUIRE_OPENSSL=1 set), where it
// runs and fails, so a CI image without openssl cannot silently drop the https tests.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { hasCode } from "@airlock/sdk/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFetchCapability } from "./fetch-capability.ts";
import { auditSink, secretSource, tableResolver, testGrant } from "./test-support.ts";
import type { FetchResult } from "./types.ts";

function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch (err) {
    return !hasCode(err, "ENOENT");
  }
}

let dir = "";
let cert = "";
let server: Server;
let port = 0;
const servernames: Array<string | false> = [];

const REQUIRED = Boolean(process.env.CI) || process.env.AIRLOCK_REQUIRE_OPENSSL === "1";

describe.skipIf(!REQUIRED && !hasOpenssl())(
  "https through the egress gate (skipped outside CI when openssl, which mints its certificate, is missing)",
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "airlock-tls-"));
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:prime256v1",
          "-nodes",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem"),
          "-days",
          "1",
          "-subj",
          "/CN=api.test",
          "-addext",
          "subjectAltName=DNS:api.test",
        ],
        { stdio: "ignore" },
      );
      cert = readFileSync(join(dir, "cert.pem"), "utf8");
      server = createServer({ key: readFileSync(join(dir, "key.pem")), cert }, (req, res) => {
        servernames.push((req.socket as TLSSocket & { servername?: string | false }).servername ?? false);
        res.end("secure hello");
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as AddressInfo).port;
    });

    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    });

    function capability(withCa: boolean) {
      const cap = createFetchCapability({
        secrets: secretSource({}),
        policy: { allowPrivate: ["127.0.0.1"] },
        resolver: tableResolver({ "api.test": "127.0.0.1", "wrong.test": "127.0.0.1" }),
        audit: auditSink().audit,
        ...(withCa ? { tls: { ca: cert } } : {}),
      });
      const grant = testGrant({
        egress: [
          { host: "api.test", ports: [port] },
          { host: "wrong.test", ports: [port] },
        ],
      });
      return (url: string) => cap.methods.request?.(grant, [url]) as Promise<FetchResult>;
    }

    it("reaches the host at its checked address with SNI and verification on the host name", async () => {
      const res = await capability(true)(`https://api.test:${port}/`);
      expect(res.status).toBe(200);
      expect(Buffer.from(res.body).toString()).toBe("secure hello");
      expect(servernames.at(-1)).toBe("api.test");
    });

    it("refuses a certificate issued for another name with AIRLOCK_FETCH_NETWORK", async () => {
      const err = await capability(true)(`https://wrong.test:${port}/`).catch((e: unknown) => e);
      expect(hasCode(err, "AIRLOCK_FETCH_NETWORK")).toBe(true);
      expect((err as { details?: { reason?: string } }).details?.reason).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
    });

    it("refuses an untrusted (self-signed) certificate when no CA is configured", async () => {
      const err = await capability(false)(`https://api.test:${port}/`).catch((e: unknown) => e);
      expect(hasCode(err, "AIRLOCK_FETCH_NETWORK")).toBe(true);
      expect((err as { details?: { reason?: string } }).details?.reason).toMatch(
        /SELF_SIGNED|UNABLE_TO_VERIFY/,
      );
    });

    it("rejects a tls.ca that is not PEM with AIRLOCK_FETCH_POLICY_INVALID", () => {
      let caught: unknown;
      try {
        createFetchCapability({
          secrets: secretSource({}),
          policy: {},
          audit: auditSink().audit,
          tls: { ca: "not a certificate" },
        });
      } catch (err) {
        caught = err;
      }
      expect(hasCode(caught, "AIRLOCK_FETCH_POLICY_INVALID")).toBe(true);
    });
  },
);
