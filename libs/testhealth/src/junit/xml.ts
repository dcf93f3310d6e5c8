import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { JUnitParseError } from './errors';
import type { JUnitLimits } from './limits';

/** A parsed element: attributes under ATTRS, text under TEXT, CDATA under CDATA, children by tag name. */
export type XmlNode = { [key: string]: unknown };

export const ATTRS = '@';
export const TEXT = '#text';
export const CDATA = '#cdata';

function parserFor(limits: JUnitLimits): XMLParser {
  return new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    // Grouping keeps an attribute and a child element of the same name from colliding.
    attributesGroupName: ATTRS,
    textNodeName: TEXT,
    cdataPropName: CDATA,
    // Off: no DOCTYPE entity is ever expanded. Predefined entities are decoded by decodeXmlText.
    processEntities: false,
    htmlEntities: false,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    alwaysCreateTextNode: true,
    // Start offsets let the walker restore document order across differently named siblings
    // (a flakyError before a flakyFailure is a different story from the reverse).
    captureMetaData: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    maxNestedTags: limits.maxDepth,
    // Every element becomes an array so one walker handles one or many; attributes must stay
    // scalars (the isArray callback is also asked about attributes).
    isArray: (_name, _path, _isLeaf, isAttribute) => !isAttribute,
  });
}

const METADATA: symbol = XMLParser.getMetaDataSymbol() as symbol;

/** Offset of the element in the XML text; 0 when unknown. */
export function positionOf(node: XmlNode): number {
  const meta = (node as Record<symbol, { startIndex?: unknown } | undefined>)[METADATA];
  return typeof meta?.startIndex === 'number' ? meta.startIndex : 0;
}

/** Validates then parses; every failure becomes a JUnitParseError. */
export function parseXml(xml: string, limits: JUnitLimits): XmlNode {
  const verdict = XMLValidator.validate(xml);
  if (verdict !== true) {
    const { msg, line, col } = verdict.err;
    throw new JUnitParseError('MALFORMED', `invalid XML at line ${line}, column ${col}: ${msg}`, { line, column: col });
  }
  try {
    return parserFor(limits).parse(xml) as XmlNode;
  } catch (err) {
    const message = (err as Error).message;
    if (/nested tags/i.test(message)) {
      throw new JUnitParseError('TOO_DEEP', `elements are nested deeper than ${limits.maxDepth} levels`);
    }
    throw new JUnitParseError('MALFORMED', `invalid XML: ${message}`);
  }
}
