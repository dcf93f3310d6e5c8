const PREDEFINED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

const REFERENCE = /&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9._-]*);/g;

function fromCodePoint(cp: number, original: string): string {
  const valid = cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
  return valid ? String.fromCodePoint(cp) : original;
}

/**
 * Decodes the five predefined entities and character references. The XML parser runs with entity
 * processing off (no DOCTYPE expansion), so this is the only decoding; any other named reference
 * is left as written.
 */
export function decodeXmlText(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (whole, ref: string) => {
    if (ref.startsWith('#x')) return fromCodePoint(Number.parseInt(ref.slice(2), 16), whole);
    if (ref.startsWith('#')) return fromCodePoint(Number.parseInt(ref.slice(1), 10), whole);
    return PREDEFINED[ref] ?? whole;
  });
}
