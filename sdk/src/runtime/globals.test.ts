// The globals.d.ts plugin authors reference type-checks plugin code that uses the sandbox's Web
// runtime with no DOM or Node library, and refuses what the sandbox refuses (a string of code
// as a timer callback).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const GLOBALS = new URL("./globals.d.ts", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "airlock-globals-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function diagnostics(source: string): string[] {
  const file = join(dir, `case-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(file, `/// <reference path=${JSON.stringify(GLOBALS)} />\n${source}\nexport {};\n`);
  const program = ts.createProgram([file], {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts"],
    types: [],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("@airlock/sdk/globals", () => {
  it("types every global the sandbox provides", () => {
    expect(
      diagnostics(`
        const bytes: Uint8Array = new TextEncoder().encode("x");
        const text: string = new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
        const q: string | null = new URL("https://a.test/?q=1").searchParams.get("q");
        const params = new URLSearchParams({ a: "1" });
        const id: number = setTimeout((a: string) => void a, 10, "x");
        clearTimeout(id);
        clearInterval(setInterval(() => undefined, 5));
        queueMicrotask(() => undefined);
        const signal: AbortSignal = AbortSignal.any([new AbortController().signal, AbortSignal.timeout(5)]);
        const res = new Response("x", { headers: new Headers({ a: "1" }) });
        const req = new Request("https://a.test/", { method: "POST", body: params, signal });
        const uuid: string = crypto.randomUUID();
        const digest: Promise<ArrayBuffer> = crypto.subtle.digest("SHA-256", crypto.getRandomValues(new Uint8Array(4)));
        const b64: string = btoa(atob("YQ=="));
        const copy: { a: number } = structuredClone({ a: 1 });
        void [text, q, res.headers.get("a"), req.method, uuid, digest, b64, copy, new DOMException("m", "AbortError").code];
      `),
    ).toEqual([]);
  });

  it("refuses a string of code as a timer callback, as the sandbox does", () => {
    expect(diagnostics(`setTimeout("globalThis.x = 1", 0);`).length).toBeGreaterThan(0);
  });
});
