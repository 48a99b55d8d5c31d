// URL and URLSearchParams: whatwg-url, the WHATWG URL Standard's reference implementation
// (the bundle leaves out its legacy multi-byte encodings: a plugin's URLs are UTF-8).
export { URL, URLSearchParams } from "whatwg-url";
