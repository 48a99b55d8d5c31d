// The globals the Airlock sandbox defines in every plugin context (the Web runtime of
// host/src/isolation/sandbox/runtime/), typed for plugin projects that compile without the DOM or Node
// libraries: reference it from a plugin's tsconfig (`"types": ["@airlock/sdk/globals"]`) or with
// `/// <reference types="@airlock/sdk/globals" />`. A project that has @types/node or lib.dom
// already has these names (with wider types than the sandbox honours: no streams, no Blob,
// UTF-8 only); this file is for the others.
// Caps the sandbox enforces (docs/sandbox.md): at most 1000 timers pending per call, delays
// clamped to [0, 2^31-1] ms, nested timers and intervals ≥ 4 ms, timers cancelled when their
// call ends; getRandomValues at most 65536 bytes.
export {};

type BufferSource = ArrayBuffer | ArrayBufferView;
type HeadersInitLike = Record<string, string> | Array<[string, string]> | Headers;
type BodyInitLike = string | BufferSource | URLSearchParams | null;

declare global {
  interface TextEncoderEncodeIntoResult {
    read: number;
    written: number;
  }
  class TextEncoder {
    readonly encoding: "utf-8";
    encode(input?: string): Uint8Array;
    encodeInto(source: string, destination: Uint8Array): TextEncoderEncodeIntoResult;
  }
  class TextDecoder {
    constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
    readonly encoding: "utf-8";
    readonly fatal: boolean;
    readonly ignoreBOM: boolean;
    decode(input?: BufferSource, options?: { stream?: boolean }): string;
  }
  function atob(data: string): string;
  function btoa(data: string): string;

  class URLSearchParams implements Iterable<[string, string]> {
    constructor(init?: string | Record<string, string> | Array<[string, string]> | URLSearchParams);
    readonly size: number;
    append(name: string, value: string): void;
    delete(name: string, value?: string): void;
    get(name: string): string | null;
    getAll(name: string): string[];
    has(name: string, value?: string): boolean;
    set(name: string, value: string): void;
    sort(): void;
    toString(): string;
    forEach(fn: (value: string, name: string, params: URLSearchParams) => void): void;
    entries(): IterableIterator<[string, string]>;
    keys(): IterableIterator<string>;
    values(): IterableIterator<string>;
    [Symbol.iterator](): IterableIterator<[string, string]>;
  }
  class URL {
    constructor(url: string | URL, base?: string | URL);
    static canParse(url: string | URL, base?: string | URL): boolean;
    static parse(url: string | URL, base?: string | URL): URL | null;
    hash: string;
    host: string;
    hostname: string;
    href: string;
    readonly origin: string;
    password: string;
    pathname: string;
    port: string;
    protocol: string;
    search: string;
    readonly searchParams: URLSearchParams;
    username: string;
    toJSON(): string;
    toString(): string;
  }

  function structuredClone<T>(value: T, options?: { transfer?: unknown[] }): T;

  interface SubtleCrypto {
    digest(
      algorithm: "SHA-1" | "SHA-256" | "SHA-384" | "SHA-512" | { name: string },
      data: BufferSource,
    ): Promise<ArrayBuffer>;
  }
  interface Crypto {
    readonly subtle: SubtleCrypto;
    getRandomValues<
      T extends
        | Int8Array
        | Uint8Array
        | Uint8ClampedArray
        | Int16Array
        | Uint16Array
        | Int32Array
        | Uint32Array
        | BigInt64Array
        | BigUint64Array,
    >(array: T): T;
    randomUUID(): `${string}-${string}-${string}-${string}-${string}`;
  }
  var crypto: Crypto;

  class DOMException extends Error {
    constructor(message?: string, name?: string);
    readonly code: number;
  }
  class Event {
    constructor(type: string, init?: { bubbles?: boolean; cancelable?: boolean });
    readonly type: string;
    readonly target: EventTarget | null;
    readonly currentTarget: EventTarget | null;
    readonly defaultPrevented: boolean;
    readonly cancelable: boolean;
    readonly timeStamp: number;
    preventDefault(): void;
    stopImmediatePropagation(): void;
    stopPropagation(): void;
  }
  type EventListenerLike = ((event: Event) => void) | { handleEvent(event: Event): void };
  class EventTarget {
    addEventListener(
      type: string,
      listener: EventListenerLike | null,
      options?: boolean | { once?: boolean; capture?: boolean; signal?: AbortSignal },
    ): void;
    removeEventListener(
      type: string,
      listener: EventListenerLike | null,
      options?: boolean | { capture?: boolean },
    ): void;
    dispatchEvent(event: Event): boolean;
  }
  class AbortSignal extends EventTarget {
    private constructor();
    readonly aborted: boolean;
    readonly reason: unknown;
    onabort: ((event: Event) => void) | null;
    throwIfAborted(): void;
    static abort(reason?: unknown): AbortSignal;
    static timeout(ms: number): AbortSignal;
    static any(signals: Iterable<AbortSignal>): AbortSignal;
  }
  class AbortController {
    readonly signal: AbortSignal;
    abort(reason?: unknown): void;
  }

  class Headers implements Iterable<[string, string]> {
    constructor(init?: HeadersInitLike);
    append(name: string, value: string): void;
    delete(name: string): void;
    get(name: string): string | null;
    getSetCookie(): string[];
    has(name: string): boolean;
    set(name: string, value: string): void;
    forEach(fn: (value: string, name: string, headers: Headers) => void): void;
    entries(): IterableIterator<[string, string]>;
    keys(): IterableIterator<string>;
    values(): IterableIterator<string>;
    [Symbol.iterator](): IterableIterator<[string, string]>;
  }
  interface BodyLike {
    readonly bodyUsed: boolean;
    arrayBuffer(): Promise<ArrayBuffer>;
    bytes(): Promise<Uint8Array>;
    json(): Promise<unknown>;
    text(): Promise<string>;
  }
  class Request implements BodyLike {
    constructor(
      input: string | URL | Request,
      init?: { method?: string; headers?: HeadersInitLike; body?: BodyInitLike; signal?: AbortSignal | null },
    );
    readonly url: string;
    readonly method: string;
    readonly headers: Headers;
    readonly signal: AbortSignal | null;
    readonly bodyUsed: boolean;
    arrayBuffer(): Promise<ArrayBuffer>;
    bytes(): Promise<Uint8Array>;
    json(): Promise<unknown>;
    text(): Promise<string>;
    clone(): Request;
  }
  class Response implements BodyLike {
    constructor(
      body?: BodyInitLike,
      init?: { status?: number; statusText?: string; headers?: HeadersInitLike },
    );
    static json(
      data: unknown,
      init?: { status?: number; statusText?: string; headers?: HeadersInitLike },
    ): Response;
    static redirect(url: string | URL, status?: number): Response;
    readonly status: number;
    readonly statusText: string;
    readonly ok: boolean;
    readonly headers: Headers;
    readonly url: string;
    readonly redirected: boolean;
    readonly type: "default";
    readonly bodyUsed: boolean;
    arrayBuffer(): Promise<ArrayBuffer>;
    bytes(): Promise<Uint8Array>;
    json(): Promise<unknown>;
    static json(
      data: unknown,
      init?: { status?: number; statusText?: string; headers?: HeadersInitLike },
    ): Response;
    static redirect(url: string | URL, status?: number): Response;
    text(): Promise<string>;
    clone(): Response;
  }

  /** Runs `fn` after `ms` (clamped; ≥ 4 ms once nested), only while the call that set it runs. */
  function setTimeout<A extends unknown[]>(fn: (...args: A) => void, ms?: number, ...args: A): number;
  /** Runs `fn` every `ms` (at least 4 ms) until cleared or until the call that set it ends. */
  function setInterval<A extends unknown[]>(fn: (...args: A) => void, ms?: number, ...args: A): number;
  function clearTimeout(id: number | undefined): void;
  function clearInterval(id: number | undefined): void;
  function queueMicrotask(fn: () => void): void;
  var self: typeof globalThis;
}
