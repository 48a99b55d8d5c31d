// URL and URLSearchParams: whatwg-url, the WHATWG URL Standard's reference implementation
// (the bundle leaves out its legacy multi-byte encodings: a plugin's URLs are UTF-8). Bundled on
// its own (../web-url.bundle.js): a context evaluates it on its first use of URL (index.js).
export { URL, URLSearchParams } from "whatwg-url";
