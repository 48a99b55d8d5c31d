// The people pages behind a TLS-terminating proxy: with the operator's public URL set
// (--public-url, AIRLOCK_PUBLIC_URL) the approval page a client is sent to is on that URL, and
// the page's own form, posted by a browser on the public origin, is taken (the host sees the
// request on its inner origin, the public host is one of the server's own addresses); a post
// from another site's page is still refused with its code, nothing decided, and the host still
// answers. A public URL that is not an http(s) URL is refused when the host is created.
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { createHost } from "../../../host/src/host.ts";
import { connect, failures, type LoopFixture, startLoopHost, text } from "./support.ts";

const PUBLIC = "https://airlock.example.com";
let fx: LoopFixture;

beforeAll(async () => {
  fx = await startLoopHost({ publicUrl: `${PUBLIC}/` });
}, 60_000);
afterEach(() => {
  const [first] = failures.splice(0);
  if (first !== undefined) throw first;
});
afterAll(async () => {
  await fx.close();
});

async function post(path: string, origin: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${fx.server.url}${path}`, {
    method: "POST",
    headers: { origin, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

test("sends the client to the approval page on the public URL, whose form posted from there decides", async () => {
  await fx.host.setPeoplePolicy("alpha", { approval: "operator", askSecrets: [] });
  const c = await connect("sdk v1, 2025-era", fx);
  c.answer = async (params) => {
    expect(params.mode).toBe("url");
    expect(params.url).toMatch(new RegExp(`^${PUBLIC}/approve/apr_`));
    const path = new URL(params.url as string).pathname;
    const html = await (await fetch(`${fx.server.url}${path}`)).text();
    const formToken = /name="form_token" value="([^"]+)"/.exec(html)?.[1] ?? "";
    expect(formToken).not.toBe("");
    const fields = { form_token: formToken, operator_token: fx.operatorToken, decision: "approve" };
    // another site's page: refused at the server's door (the DNS-rebinding guard), the form
    // token left unspent
    const foreign = await post(path, "https://evil.example", fields);
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toContain("AIRLOCK_API_HOST_NOT_ALLOWED");
    expect((await fetch(`${fx.server.url}/healthz`)).status).toBe(200);
    // the page as the browser loaded it, through the proxy
    const own = await post(path, PUBLIC, fields);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain("Approved");
    return { action: "accept" };
  };
  expect(text(await c.call("loop__write", { note: "through the proxy" }))).toBe("written: through the proxy");
  expect(c.asked).toHaveLength(1);
  await c.close();
}, 60_000);

test("refuses a public URL that is not an http(s) URL when the host is created", async () => {
  for (const bad of ["not a url", "ftp://airlock.example.com"]) {
    await expect(createHost({ dataDir: "/nonexistent-airlock", publicUrl: bad })).rejects.toThrow(
      /public URL .* must be an http\(s\) URL/,
    );
  }
});
