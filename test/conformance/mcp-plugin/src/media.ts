// Minimal media for the conformance tools, as base64: a valid 1x1 red PNG (8-bit RGB, one
// zlib-compressed scanline, CRCs checked) and a valid 8 kHz mono 8-bit PCM WAV of 8 silent
// samples. Generated once with node:zlib; any decoder accepts both.
export const RED_PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
export const SILENT_WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";
