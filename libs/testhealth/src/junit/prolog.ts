import { JUnitParseError } from './errors';

/**
 * Refuses a DOCTYPE that declares entities. The parser runs with entity processing off, so nothing
 * would be expanded anyway; refusing says plainly why a billion-laughs or XXE document gets no
 * results, and no JUnit producer writes entity declarations.
 *
 * Only the prolog is scanned: "<!ENTITY" inside a CDATA failure message further down is legal text.
 */
export function assertNoEntityDeclarations(xml: string): void {
  let i = 0;
  for (;;) {
    while (i < xml.length && /\s/.test(xml.charAt(i))) i += 1;
    if (xml.startsWith('<?', i)) {
      const end = xml.indexOf('?>', i + 2);
      if (end < 0) return;
      i = end + 2;
    } else if (xml.startsWith('<!--', i)) {
      const end = xml.indexOf('-->', i + 4);
      if (end < 0) return;
      i = end + 3;
    } else if (xml.startsWith('<!DOCTYPE', i)) {
      if (doctypeDeclaresEntities(xml, i)) {
        throw new JUnitParseError('ENTITIES_NOT_ALLOWED', 'the DOCTYPE declares entities; JUnit reports must not');
      }
      return;
    } else {
      return;
    }
  }
}

function doctypeDeclaresEntities(xml: string, start: number): boolean {
  const subsetOpen = xml.indexOf('[', start);
  const close = xml.indexOf('>', start);
  if (subsetOpen < 0 || (close >= 0 && close < subsetOpen)) return false;
  const closeMatch = /\]\s*>/.exec(xml.slice(subsetOpen));
  const subset = xml.slice(subsetOpen, closeMatch ? subsetOpen + closeMatch.index : xml.length);
  return subset.includes('<!ENTITY');
}
