import { gunzipSync } from 'node:zlib';
import { JUnitParseError } from './errors';
import type { JUnitLimits } from './limits';

const startsWith = (bytes: Buffer, magic: readonly number[]): boolean =>
  bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b);

const GZIP = [0x1f, 0x8b];
const OTHER_CONTAINERS: ReadonlyArray<[string, readonly number[]]> = [
  ['zip', [0x50, 0x4b, 0x03, 0x04]],
  ['zstd', [0x28, 0xb5, 0x2f, 0xfd]],
  ['bzip2', [0x42, 0x5a, 0x68]],
  ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
];

function inflate(bytes: Buffer, limits: JUnitLimits): Buffer {
  try {
    // maxOutputLength makes zlib stop as soon as the output would pass the cap, so a gzip bomb
    // costs at most maxXmlBytes of memory, never its full inflated size.
    return gunzipSync(bytes, { maxOutputLength: limits.maxXmlBytes });
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new JUnitParseError('TOO_LARGE', `report inflates to more than ${limits.maxXmlBytes} bytes`);
    }
    throw new JUnitParseError('MALFORMED', `corrupt gzip data: ${(err as Error).message}`);
  }
}

function decodeText(bytes: Buffer): string {
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) return bytes.subarray(3).toString('utf8');
  if (startsWith(bytes, [0xff, 0xfe])) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (startsWith(bytes, [0xfe, 0xff])) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  return bytes.toString('utf8');
}

/** Plain or gzip bytes to XML text and its size in bytes, enforcing the size caps before anything is parsed. */
export function xmlTextOf(bytes: Buffer, limits: JUnitLimits): { text: string; bytes: number } {
  if (bytes.length > limits.maxInputBytes) {
    throw new JUnitParseError('TOO_LARGE', `report is ${bytes.length} bytes; the limit is ${limits.maxInputBytes}`);
  }
  for (const [kind, magic] of OTHER_CONTAINERS) {
    if (startsWith(bytes, magic)) throw new JUnitParseError('NOT_JUNIT', `${kind} data is not accepted; send plain or gzip XML`);
  }
  const xml = startsWith(bytes, GZIP) ? inflate(bytes, limits) : bytes;
  if (xml.length > limits.maxXmlBytes) {
    throw new JUnitParseError('TOO_LARGE', `report is ${xml.length} bytes; the limit is ${limits.maxXmlBytes}`);
  }
  return { text: decodeText(xml), bytes: xml.length };
}
