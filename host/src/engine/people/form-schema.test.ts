// The flat form schema of ctx.elicit: what a plugin may ask with, what reaches the client, what
// content passes, and what the audit keeps.
import { describe, expect, it } from "vitest";
import { auditView, checkContent, checkForm } from "./form-schema.ts";

const form = () =>
  checkForm({
    message: "Sign in",
    schema: {
      type: "object",
      properties: {
        user: { type: "string", title: "User", minLength: 2, default: "ada" },
        pin: { type: "string", sensitive: true },
        age: { type: "integer", minimum: 0, maximum: 150 },
        plan: {
          type: "string",
          oneOf: [
            { const: "free", title: "Free" },
            { const: "pro", title: "Pro" },
          ],
        },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 2 },
        ok: { type: "boolean", default: true },
      },
      required: ["user"],
    },
  });

describe("ctx.elicit forms", () => {
  it("sends the client the form without the host-only sensitive flag", () => {
    const f = form();
    expect(f.wire.properties.pin).toEqual({ type: "string" });
    expect(f.wire.properties.user).toEqual({ type: "string", title: "User", minLength: 2, default: "ada" });
    expect(f.wire.required).toEqual(["user"]);
  });

  it.each([
    [{ message: "", schema: { type: "object", properties: { a: { type: "string" } } } }, "message"],
    [{ message: "m", schema: { type: "object", properties: {} } }, "1 to 32 properties"],
    [
      { message: "m", schema: { type: "object", properties: { a: { type: "object", properties: {} } } } },
      ".type must be",
    ],
    [
      { message: "m", schema: { type: "object", properties: { a: { type: "string", default: 3 } } } },
      "default must be a string",
    ],
    [
      { message: "m", schema: { type: "object", properties: { a: { type: "string", format: "regex" } } } },
      "format",
    ],
    [
      { message: "m", schema: { type: "object", properties: { "a b": { type: "string" } } } },
      "plain identifier",
    ],
    [
      { message: "m", schema: { type: "object", properties: { a: { type: "string" } }, required: ["b"] } },
      "not a property",
    ],
    ["not an object", "pass { message, schema }"],
  ])("refuses a form that is not flat: %j", (request, fragment) => {
    expect(() => checkForm(request)).toThrowError(
      expect.objectContaining({ code: "AIRLOCK_ELICIT_INVALID" }),
    );
    expect(() => checkForm(request)).toThrow(fragment);
  });

  it("passes content that matches, and refuses what does not", () => {
    const f = form();
    expect(
      checkContent(f, { user: "grace", pin: "1234", age: 36, plan: "pro", tags: ["a"], ok: false }),
    ).toEqual({
      user: "grace",
      pin: "1234",
      age: 36,
      plan: "pro",
      tags: ["a"],
      ok: false,
    });
    for (const bad of [
      {},
      { user: "x" },
      { user: "grace", age: 1.5 },
      { user: "grace", plan: "gold" },
      { user: "grace", tags: ["a", "b", "a"] },
      { user: "grace", extra: 1 },
    ]) {
      expect(() => checkContent(f, bad)).toThrowError(
        expect.objectContaining({ code: "AIRLOCK_ELICIT_CONTENT_INVALID" }),
      );
    }
  });

  it("keeps every field's name in the audit view and no value of a sensitive one", () => {
    const f = form();
    expect(auditView(f, checkContent(f, { user: "grace", pin: "SECRET-PIN" }))).toEqual({
      user: "grace",
      pin: "[sensitive: omitted]",
    });
  });
});
